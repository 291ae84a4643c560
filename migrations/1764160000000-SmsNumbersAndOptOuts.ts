import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sending numbers become operator assignments (`sms_numbers`, one tenant per number and mode) instead of a
 * practice setting any OWNER could point at another practice's number; and STOP is recorded per phone and
 * sending number (`sms_opt_outs`), so that it holds for a send by bare number too.
 *
 * Carried over: a practice `smsFromNumber` that is E.164 and that no other tenant claims in the same mode
 * (the tenant was already texting from it and nobody else was). A number two tenants claimed goes to neither:
 * an operator decides. The key is then dropped from every stored practice settings document. Past STOP replies
 * named no sending number, so the registry starts empty; the patients' `smsOptOut` flags keep those.
 */
export class SmsNumbersAndOptOuts1764160000000 implements MigrationInterface {
  name = 'SmsNumbersAndOptOuts1764160000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sms_numbers (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        number varchar(16) NOT NULL,
        assigned_at timestamptz(3) NOT NULL,
        PRIMARY KEY (tenant_id, mode)
      )`);
    await q.query(`CREATE UNIQUE INDEX "UQ_SMS_NUMBERS_NUMBER_MODE" ON sms_numbers (number, mode)`);
    await q.query(`
      CREATE TABLE sms_opt_outs (
        phone varchar(16) NOT NULL,
        sending_number varchar(16) NOT NULL,
        keyword varchar(16) NOT NULL,
        opted_out_at timestamptz(3) NOT NULL,
        PRIMARY KEY (phone, sending_number)
      )`);
    await q.query(`
      INSERT INTO sms_numbers (tenant_id, mode, number, assigned_at)
      SELECT tenant_id, mode, number, now()
        FROM (SELECT tenant_id, mode, btrim(data->>'smsFromNumber') AS number,
                     count(*) OVER (PARTITION BY btrim(data->>'smsFromNumber'), mode) AS claims
                FROM settings
               WHERE section = 'practice' AND jsonb_typeof(data->'smsFromNumber') = 'string') s
       WHERE number ~ '^\\+[1-9][0-9]{6,14}$' AND claims = 1`);
    await q.query(`UPDATE settings SET data = data - 'smsFromNumber' WHERE section = 'practice' AND data ? 'smsFromNumber'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      INSERT INTO settings AS s (tenant_id, mode, section, data, updated_at)
      SELECT tenant_id, mode, 'practice', jsonb_build_object('smsFromNumber', number), now() FROM sms_numbers
      ON CONFLICT (tenant_id, mode, section) DO UPDATE SET data = s.data || EXCLUDED.data`);
    await q.query(`DROP TABLE sms_opt_outs`);
    await q.query(`DROP TABLE sms_numbers`);
  }
}
