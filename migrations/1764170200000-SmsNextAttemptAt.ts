import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Text messages record when their send is due (again) as emails do, since both go through one sender: a
 * message that exists already is due from when it was created.
 */
export class SmsNextAttemptAt1764170200000 implements MigrationInterface {
  name = 'SmsNextAttemptAt1764170200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sms_messages ADD COLUMN next_attempt_at timestamptz(3)`);
    await q.query(`UPDATE sms_messages SET next_attempt_at = created_at`);
    await q.query(`ALTER TABLE sms_messages ALTER COLUMN next_attempt_at SET NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE sms_messages DROP COLUMN next_attempt_at`);
  }
}
