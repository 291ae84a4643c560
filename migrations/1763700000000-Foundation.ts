import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tenants, API keys and settings.
 * - api_keys.key_hash is unique: authentication looks a key up by its hash, nothing else.
 * - (tenant_id, mode, created_at, id) serves the newest-first key list of one tenant and mode.
 */
export class Foundation1763700000000 implements MigrationInterface {
  name = 'Foundation1763700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenants (
        id uuid PRIMARY KEY,
        name varchar(200) NOT NULL,
        created_at timestamptz(3) NOT NULL
      )`);
    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        key_hash char(64) NOT NULL,
        name varchar(100) NOT NULL,
        description varchar(500),
        role varchar(5) NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'STAFF')),
        scopes text[],
        prefix varchar(16) NOT NULL,
        last4 char(4) NOT NULL,
        created_by_key_id uuid,
        last_used_at timestamptz(3),
        expires_at timestamptz(3),
        revoked_at timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX "UQ_API_KEYS_KEY_HASH" ON api_keys (key_hash)`);
    await q.query(`CREATE INDEX "IDX_API_KEYS_TENANT_MODE_CREATED" ON api_keys (tenant_id, mode, created_at, id)`);
    await q.query(`
      CREATE TABLE settings (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        section varchar(16) NOT NULL CHECK (section IN ('portal', 'practice', 'brand')),
        data jsonb NOT NULL DEFAULT '{}'::jsonb,
        updated_at timestamptz(3) NOT NULL,
        PRIMARY KEY (tenant_id, mode, section)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE settings`);
    await q.query(`DROP TABLE api_keys`);
    await q.query(`DROP TABLE tenants`);
  }
}
