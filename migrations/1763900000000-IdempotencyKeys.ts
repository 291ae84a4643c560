import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys in PostgreSQL, so that a request's outcome is recorded in the
 * same transaction as the write it guards (see IdempotencyInterceptor).
 * - UQ_IDEMPOTENCY_KEYS_TENANT_MODE_API_KEY_KEY: one record per API key and Idempotency-Key (stored as its
 *   SHA-256); the claim is an INSERT … ON CONFLICT on it. Another API key's use of the same value is
 *   another record: a stored answer is only ever replayed to the key that made the request.
 * - IDX_IDEMPOTENCY_KEYS_EXPIRES: the periodic sweep of expired records.
 * - api_key_id has no foreign key: keys are revoked, never deleted, and a claim should not wait on a
 *   lock of the api_keys table; records go with their tenant, or expire.
 * - recovery_points: the results of the request's committed transactions (v8-serialised), appended
 *   inside each transaction before its COMMIT; a retry after a crash runs the handler again with these
 *   results in place of the work they record.
 */
export class IdempotencyKeys1763900000000 implements MigrationInterface {
  name = 'IdempotencyKeys1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE idempotency_keys (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        api_key_id uuid NOT NULL,
        key_hash char(64) NOT NULL,
        fingerprint char(64) NOT NULL,
        state varchar(7) NOT NULL CHECK (state IN ('running', 'done')),
        token uuid,
        locked_until timestamptz(3) NOT NULL,
        recovery_points bytea[] NOT NULL DEFAULT '{}',
        response_status smallint,
        response_body text,
        response_headers jsonb,
        created_at timestamptz(3) NOT NULL,
        expires_at timestamptz(3) NOT NULL
      )`);
    await q.query(
      `CREATE UNIQUE INDEX "UQ_IDEMPOTENCY_KEYS_TENANT_MODE_API_KEY_KEY" ON idempotency_keys (tenant_id, mode, api_key_id, key_hash)`,
    );
    await q.query(`CREATE INDEX "IDX_IDEMPOTENCY_KEYS_EXPIRES" ON idempotency_keys (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE idempotency_keys`);
  }
}
