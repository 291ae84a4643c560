import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Audit entries of keyless requests: a public booking page's booking is recorded in the scheduler's tenant
 * and mode with no API key, so api_key_id becomes nullable (IDX_AUDIT_LOG_TENANT_MODE_KEY keeps serving
 * the apiKeyId filter; the null entries sort together in it).
 */
export class AuditLogPublicRequests1764020000001 implements MigrationInterface {
  name = 'AuditLogPublicRequests1764020000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE audit_log ALTER COLUMN api_key_id DROP NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM audit_log WHERE api_key_id IS NULL`);
    await q.query(`ALTER TABLE audit_log ALTER COLUMN api_key_id SET NOT NULL`);
  }
}
