import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every audited request inserts an audit_log row, so its cost per row is the audit log's cost per request
 * (bench/audit.mjs). These two changes cut PostgreSQL's CPU per row by about a third (bench/README.md, Audit
 * log):
 * - the primary key becomes (tenant_id, mode, at, id), the order the log is paged in, which replaces both
 *   the id key and IDX_AUDIT_LOG_TENANT_MODE_AT (one index fewer to maintain per insert);
 * - the foreign key to tenants goes: its check read and share-locked the tenant's row for every inserted
 *   entry. The tenant id comes from a verified key, and an audit trail may outlive its tenant.
 */
export class AuditLogCheapInserts1764040000000 implements MigrationInterface {
  name = 'AuditLogCheapInserts1764040000000';

  async up(q: QueryRunner): Promise<void> {
    const [fk] = (await q.query(
      `SELECT conname FROM pg_constraint WHERE conrelid = 'audit_log'::regclass AND contype = 'f' AND confrelid = 'tenants'::regclass`,
    )) as { conname: string }[];
    if (fk) await q.query(`ALTER TABLE audit_log DROP CONSTRAINT "${fk.conname}"`);
    await q.query(`ALTER TABLE audit_log DROP CONSTRAINT audit_log_pkey`);
    await q.query(`ALTER TABLE audit_log ADD CONSTRAINT audit_log_pkey PRIMARY KEY (tenant_id, mode, at, id)`);
    await q.query(`DROP INDEX "IDX_AUDIT_LOG_TENANT_MODE_AT"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "IDX_AUDIT_LOG_TENANT_MODE_AT" ON audit_log (tenant_id, mode, at, id)`);
    await q.query(`ALTER TABLE audit_log DROP CONSTRAINT audit_log_pkey`);
    await q.query(`ALTER TABLE audit_log ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id)`);
    await q.query(`DELETE FROM audit_log a WHERE NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = a.tenant_id)`);
    await q.query(`ALTER TABLE audit_log ADD FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE`);
  }
}
