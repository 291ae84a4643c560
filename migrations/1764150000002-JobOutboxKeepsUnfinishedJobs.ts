import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * job_outbox keeps a job's row until the job has finished for good, not only until Redis accepted it, so that
 * a Redis that comes back without its data can be given every unfinished job again (JobOutbox, JobOutboxRelay).
 * - `job_id`: the BullMQ job id, by which a finished job's rows are deleted (IDX_JOB_OUTBOX_JOB);
 * - `added_at`: when Redis accepted the job; the relay takes only rows without it, through the partial index.
 */
export class JobOutboxKeepsUnfinishedJobs1764150000002 implements MigrationInterface {
  name = 'JobOutboxKeepsUnfinishedJobs1764150000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_outbox ADD COLUMN job_id varchar(200), ADD COLUMN added_at timestamptz(3)`);
    await q.query(`UPDATE job_outbox SET job_id = options->>'jobId'`);
    await q.query(`ALTER TABLE job_outbox ALTER COLUMN job_id SET NOT NULL`);
    await q.query(`DROP INDEX "IDX_JOB_OUTBOX_AVAILABLE"`);
    await q.query(`CREATE INDEX "IDX_JOB_OUTBOX_AVAILABLE" ON job_outbox (prefix, available_at, id) WHERE added_at IS NULL`);
    await q.query(`CREATE INDEX "IDX_JOB_OUTBOX_JOB" ON job_outbox (prefix, job_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM job_outbox WHERE added_at IS NOT NULL`);
    await q.query(`DROP INDEX "IDX_JOB_OUTBOX_JOB"`);
    await q.query(`DROP INDEX "IDX_JOB_OUTBOX_AVAILABLE"`);
    await q.query(`CREATE INDEX "IDX_JOB_OUTBOX_AVAILABLE" ON job_outbox (prefix, available_at, id)`);
    await q.query(`ALTER TABLE job_outbox DROP COLUMN added_at, DROP COLUMN job_id`);
  }
}
