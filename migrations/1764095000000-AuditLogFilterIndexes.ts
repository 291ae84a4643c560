import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit log's `apiKeyId` and `action` filters in page order (`at DESC, id DESC`): the key's index gains
 * `id`, and `action` gets one. Without them the planner walked the primary key, filtering, whenever other keys
 * and actions had just written many entries (bench/README.md, Scale). Created on the partitioned table, so
 * every month's partition has them, and the ones the workers create later inherit them.
 */
export class AuditLogFilterIndexes1764095000000 implements MigrationInterface {
  name = 'AuditLogFilterIndexes1764095000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_AUDIT_LOG_TENANT_MODE_KEY"`);
    await q.query(`CREATE INDEX "IDX_AUDIT_LOG_TENANT_MODE_KEY" ON audit_log (tenant_id, mode, api_key_id, at, id)`);
    await q.query(`CREATE INDEX "IDX_AUDIT_LOG_TENANT_MODE_ACTION" ON audit_log (tenant_id, mode, action, at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_AUDIT_LOG_TENANT_MODE_ACTION"`);
    await q.query(`DROP INDEX "IDX_AUDIT_LOG_TENANT_MODE_KEY"`);
    await q.query(`CREATE INDEX "IDX_AUDIT_LOG_TENANT_MODE_KEY" ON audit_log (tenant_id, mode, api_key_id, at)`);
  }
}
