import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two lists whose plan fell off a cliff at a million patients (docs/decisions/0001-indexes-for-lists-at-scale.md):
 * - IDX_PATIENTS_TENANT_MODE_EMAIL now holds the page order (created_at, id) and every row (no longer
 *   partial). PostgreSQL ignores a partial index's expression statistics, so the planner guessed that 0.5 %
 *   of the tenant shares an address; at a million patients, sorting that guess looked dearer than walking
 *   the newest-first index until 51 matches turned up, which for a real address is the whole tenant
 *   (13 s cold). In page order the index answers the page in as many reads as it has rows, whatever the
 *   guess, custom or generic plan; whole, it also gets statistics. It serves the public booking's lookup
 *   of the oldest patient with an email too.
 * - IDX_APPOINTMENTS_TENANT_MODE_STATUS_STARTS: `status` of GET /scheduling/appointments, in the list's
 *   order (starts_at, id). Without it the list walked every appointment since the first one until 51 of the
 *   status turned up: 1.5 s for `scheduled` with 500,000 appointments, most of them in the past.
 */
export class ListIndexesAtScale1764060000000 implements MigrationInterface {
  name = 'ListIndexesAtScale1764060000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_PATIENTS_TENANT_MODE_EMAIL"`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_TENANT_MODE_EMAIL" ON patients (tenant_id, mode, lower(email), created_at, id)`);
    await q.query(`CREATE INDEX "IDX_APPOINTMENTS_TENANT_MODE_STATUS_STARTS" ON appointments (tenant_id, mode, status, starts_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_APPOINTMENTS_TENANT_MODE_STATUS_STARTS"`);
    await q.query(`DROP INDEX "IDX_PATIENTS_TENANT_MODE_EMAIL"`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_TENANT_MODE_EMAIL" ON patients (tenant_id, mode, lower(email)) WHERE email IS NOT NULL`);
  }
}
