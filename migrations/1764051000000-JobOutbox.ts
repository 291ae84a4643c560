import { MigrationInterface, QueryRunner } from 'typeorm';

/** The job outbox: jobs recorded in the transaction whose commit they must follow (JobOutbox). */
export class JobOutbox1764051000000 implements MigrationInterface {
  name = 'JobOutbox1764051000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE job_outbox (
        id uuid PRIMARY KEY,
        prefix varchar(200) NOT NULL,
        name varchar(64) NOT NULL,
        payload jsonb NOT NULL,
        options jsonb NOT NULL,
        run_at timestamptz(3),
        available_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX "IDX_JOB_OUTBOX_AVAILABLE" ON job_outbox (prefix, available_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE job_outbox`);
  }
}
