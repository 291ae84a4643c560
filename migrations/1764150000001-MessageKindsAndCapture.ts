import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Test-mode capture and what a message is for.
 *
 * - email_messages.transport may be `test`: a test-mode email captured instead of sent, so that test data never
 *   reaches a real person (SMS already had it).
 * - email_messages and sms_messages gain `kind` (send, sequence, reminder, booking_notice, waitlist_offer) and
 *   `appointment_id` (the appointment a reminder or notice is about), filled in for existing rows from the
 *   sequence columns and appointment_reminders.message_id; lists filter by the appointment through a
 *   partial index per table.
 */
export class MessageKindsAndCapture1764150000001 implements MigrationInterface {
  name = 'MessageKindsAndCapture1764150000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE email_messages DROP CONSTRAINT email_messages_transport_check`);
    await q.query(`ALTER TABLE email_messages ADD CONSTRAINT email_messages_transport_check CHECK (transport IN ('smtp', 'log', 'test'))`);
    for (const table of ['email_messages', 'sms_messages']) {
      const channel = table === 'email_messages' ? 'email' : 'sms';
      const prefix = table.toUpperCase();
      await q.query(
        `ALTER TABLE ${table} ADD COLUMN kind varchar(16) NOT NULL DEFAULT 'send',
                              ADD COLUMN appointment_id uuid REFERENCES appointments(id) ON DELETE SET NULL`,
      );
      await q.query(
        `UPDATE ${table} m SET kind = 'reminder', appointment_id = r.appointment_id
           FROM appointment_reminders r
          WHERE r.message_id = m.id AND r.channel = '${channel}' AND r.tenant_id = m.tenant_id AND r.mode = m.mode`,
      );
      if (table === 'email_messages') await q.query(`UPDATE email_messages SET kind = 'sequence' WHERE enrollment_id IS NOT NULL`);
      await q.query(
        `ALTER TABLE ${table} ADD CONSTRAINT ${table}_kind_check CHECK (kind IN ('send', 'sequence', 'reminder', 'booking_notice', 'waitlist_offer'))`,
      );
      await q.query(
        `CREATE INDEX "IDX_${prefix}_TENANT_MODE_APPOINTMENT" ON ${table} (tenant_id, mode, appointment_id, created_at, id) WHERE appointment_id IS NOT NULL`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['email_messages', 'sms_messages']) {
      await q.query(`DROP INDEX "IDX_${table.toUpperCase()}_TENANT_MODE_APPOINTMENT"`);
      await q.query(`ALTER TABLE ${table} DROP COLUMN appointment_id, DROP COLUMN kind`);
    }
    await q.query(`UPDATE email_messages SET transport = 'log' WHERE transport = 'test'`);
    await q.query(`ALTER TABLE email_messages DROP CONSTRAINT email_messages_transport_check`);
    await q.query(`ALTER TABLE email_messages ADD CONSTRAINT email_messages_transport_check CHECK (transport IN ('smtp', 'log'))`);
  }
}
