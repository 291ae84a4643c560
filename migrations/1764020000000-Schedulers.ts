import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Schedulers: public booking pages over one or more providers.
 * - provider_ids: the providers the page books (uuid[], at least one); checked against the tenant and mode
 *   when written. Providers are deactivated, never deleted, so an id stays meaningful.
 * - UQ_SCHEDULERS_TENANT_MODE_SLUG: a slug is unique per tenant and mode; concurrent creates with one slug
 *   are settled by it (23505 → 409 slug_taken).
 * - IDX_SCHEDULERS_TENANT_MODE_CREATED: GET /schedulers pages newest first.
 * - views_count / bookings_count are incremented by one UPDATE each (a public view; a public booking, in
 *   the booking's transaction), so concurrent requests serialise on the row and the counts are exact.
 */
export class Schedulers1764020000000 implements MigrationInterface {
  name = 'Schedulers1764020000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE schedulers (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        name varchar(200) NOT NULL,
        slug varchar(100) NOT NULL,
        description varchar(2000),
        provider_ids uuid[] NOT NULL,
        duration integer NOT NULL CHECK (duration BETWEEN 5 AND 480),
        type varchar(100),
        is_active boolean NOT NULL,
        views_count integer NOT NULL DEFAULT 0,
        bookings_count integer NOT NULL DEFAULT 0,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX "IDX_SCHEDULERS_TENANT_MODE_CREATED" ON schedulers (tenant_id, mode, created_at, id)`);
    await q.query(`CREATE UNIQUE INDEX "UQ_SCHEDULERS_TENANT_MODE_SLUG" ON schedulers (tenant_id, mode, slug)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE schedulers`);
  }
}
