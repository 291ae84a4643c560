import { MigrationInterface, QueryRunner } from 'typeorm';

/** A booking page may require the patient's phone (for text reminders and notices); pages made before do not. */
export class SchedulerRequirePhone1764180100000 implements MigrationInterface {
  name = 'SchedulerRequirePhone1764180100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE schedulers ADD COLUMN require_phone boolean NOT NULL DEFAULT false`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE schedulers DROP COLUMN require_phone`);
  }
}
