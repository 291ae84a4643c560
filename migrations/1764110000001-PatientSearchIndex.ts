import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The search's trigram index without tenant_id. A GIN index with tenant_id intersects every term with the
 * tenant's posting tree, whose length is the tenant's size, so a rare term (a phone number, a full name) cost
 * more the larger the practice; on trigrams alone it costs about its matches, and the tenant and mode are
 * checked on those rows (docs/decisions/0001-indexes-for-lists-at-scale.md).
 */
export class PatientSearchIndex1764110000001 implements MigrationInterface {
  name = 'PatientSearchIndex1764110000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_PATIENTS_TENANT_SEARCH"`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_SEARCH" ON patients USING gin (search_text gin_trgm_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_PATIENTS_SEARCH"`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_TENANT_SEARCH" ON patients USING gin (tenant_id, search_text gin_trgm_ops)`);
  }
}
