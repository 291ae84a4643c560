import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SMS messages and the patient's SMS consent.
 *
 * - sms_messages: one row per message, written with its send job (the job outbox); the message id is the
 *   BullMQ job id. `status` moves queued → sending → sent → delivered | undelivered | failed (the last
 *   three from the provider's status callbacks), or queued → suppressed / failed. `sending` means a worker
 *   has started a try whose answer is not recorded: a row left so by a dead worker is sent again.
 * - UQ_SMS_MESSAGES_PROVIDER_ID finds the message a status callback names (across tenants: the provider
 *   knows no tenant), and keeps two rows from claiming one provider message.
 * - patients.sms_opt_out: the SMS half of the consent record, beside email_opt_out. IDX_PATIENTS_LIVE_PHONE
 *   finds the live patients an inbound STOP names by their number, whatever their tenant.
 */
export class SmsMessages1764090000000 implements MigrationInterface {
  name = 'SmsMessages1764090000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE patients ADD COLUMN sms_opt_out boolean NOT NULL DEFAULT false`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_LIVE_PHONE" ON patients (phone) WHERE phone IS NOT NULL AND mode = 'live'`);
    await q.query(`
      CREATE TABLE sms_messages (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        patient_id uuid REFERENCES patients(id) ON DELETE SET NULL,
        template_id uuid REFERENCES sms_templates(id) ON DELETE SET NULL,
        to_number varchar(20) NOT NULL,
        from_number varchar(20),
        body text NOT NULL,
        segments integer NOT NULL,
        encoding varchar(5) NOT NULL CHECK (encoding IN ('GSM-7', 'UCS-2')),
        status varchar(16) NOT NULL CHECK (status IN ('queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'suppressed')),
        transport varchar(8) CHECK (transport IN ('twilio', 'log', 'test')),
        provider_message_id varchar(64),
        attempts integer NOT NULL DEFAULT 0,
        last_error varchar(500),
        sent_at timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX "IDX_SMS_MESSAGES_TENANT_MODE_CREATED" ON sms_messages (tenant_id, mode, created_at, id)`);
    await q.query(
      `CREATE INDEX "IDX_SMS_MESSAGES_TENANT_MODE_PATIENT" ON sms_messages (tenant_id, mode, patient_id, created_at, id) WHERE patient_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "IDX_SMS_MESSAGES_TENANT_MODE_STATUS" ON sms_messages (tenant_id, mode, status, created_at, id)`);
    await q.query(
      `CREATE UNIQUE INDEX "UQ_SMS_MESSAGES_PROVIDER_ID" ON sms_messages (provider_message_id) WHERE provider_message_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sms_messages`);
    await q.query(`DROP INDEX "IDX_PATIENTS_LIVE_PHONE"`);
    await q.query(`ALTER TABLE patients DROP COLUMN sms_opt_out`);
  }
}
