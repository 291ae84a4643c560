import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The page-order index also carries `search_text`, so that a search walking the newest patients reads the
 * index alone instead of one table row per patient it checks (docs/decisions/0001-indexes-for-lists-at-scale.md).
 * It replaces the index of the same name: one index to write per insert, as before, with wider entries.
 */
export class PatientPageOrderSearchText1764120000000 implements MigrationInterface {
  name = 'PatientPageOrderSearchText1764120000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_PATIENTS_TENANT_MODE_CREATED"`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_TENANT_MODE_CREATED" ON patients (tenant_id, mode, created_at, id) INCLUDE (search_text)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_PATIENTS_TENANT_MODE_CREATED"`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_TENANT_MODE_CREATED" ON patients (tenant_id, mode, created_at, id)`);
  }
}
