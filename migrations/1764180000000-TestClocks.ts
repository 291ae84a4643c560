import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each tenant's test mode has a clock: its offset from real time (none: real time). A delayed job whose due
 * time is read on a tenant's test clock (a test-mode reminder or sequence step) names that tenant, so that
 * the queue can time it by that clock and an advance can find what comes due.
 */
export class TestClocks1764180000000 implements MigrationInterface {
  name = 'TestClocks1764180000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE test_clocks (
        tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
        offset_ms bigint NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`ALTER TABLE job_outbox ADD COLUMN clock_tenant_id uuid`);
    await q.query(`CREATE INDEX "IDX_JOB_OUTBOX_CLOCK" ON job_outbox (clock_tenant_id, run_at) WHERE clock_tenant_id IS NOT NULL`);
    // Jobs recorded before: test-mode reminders and sequence steps are read on their tenant's clock.
    await q.query(`
      UPDATE job_outbox SET clock_tenant_id = (payload->>'tenantId')::uuid
       WHERE run_at IS NOT NULL AND payload->>'mode' = 'test' AND name IN ('reminder-send', 'email-sequence-step')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_JOB_OUTBOX_CLOCK"`);
    await q.query(`ALTER TABLE job_outbox DROP COLUMN clock_tenant_id`);
    await q.query(`DROP TABLE test_clocks`);
  }
}
