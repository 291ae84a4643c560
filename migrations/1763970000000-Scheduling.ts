import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Providers, their time off, and appointments.
 * - EX_APPOINTMENTS_PROVIDER_ACTIVE_TIME: an exclusion constraint (GiST, with btree_gist for the uuid
 *   equality) forbids two scheduled or confirmed appointments of one provider whose [starts_at, ends_at)
 *   ranges overlap. It is what makes concurrent bookings of one slot yield exactly one success: the loser's
 *   INSERT fails with 23P01 whatever the application checked before. Its partial GiST index also answers
 *   availability's "active appointments of this provider in this range".
 * - IDX_APPOINTMENTS_TENANT_MODE_STARTS (tenant_id, mode, starts_at, id): the appointment list, which is
 *   sorted by datetime ascending and paged by (starts_at, id); startDate/endDate are a range of it.
 * - IDX_APPOINTMENTS_TENANT_MODE_PROVIDER_STARTS / _PATIENT_STARTS: the providerId and patientId filters
 *   (any status), in datetime order.
 * - IDX_PROVIDER_TIME_OFF_TENANT_MODE_PROVIDER_START: one provider's time off near a range.
 * - IDX_PROVIDERS_TENANT_MODE_CREATED: the newest-first provider list.
 */
export class Scheduling1763970000000 implements MigrationInterface {
  name = 'Scheduling1763970000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS btree_gist`);
    await q.query(`
      CREATE TABLE providers (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        name varchar(200) NOT NULL,
        email varchar(320),
        timezone varchar(64) NOT NULL,
        working_hours jsonb NOT NULL,
        is_active boolean NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX "IDX_PROVIDERS_TENANT_MODE_CREATED" ON providers (tenant_id, mode, created_at, id)`);

    await q.query(`
      CREATE TABLE provider_time_off (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        provider_id uuid NOT NULL REFERENCES providers(id) ON DELETE CASCADE,
        start_at timestamptz(3) NOT NULL,
        end_at timestamptz(3) NOT NULL CHECK (end_at > start_at),
        reason varchar(500),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(
      `CREATE INDEX "IDX_PROVIDER_TIME_OFF_TENANT_MODE_PROVIDER_START" ON provider_time_off (tenant_id, mode, provider_id, start_at)`,
    );

    await q.query(`
      CREATE TABLE appointments (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        patient_id uuid NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
        provider_id uuid NOT NULL REFERENCES providers(id),
        starts_at timestamptz(3) NOT NULL,
        ends_at timestamptz(3) NOT NULL CHECK (ends_at > starts_at),
        duration integer NOT NULL CHECK (duration BETWEEN 5 AND 480),
        status varchar(10) NOT NULL CHECK (status IN ('scheduled', 'confirmed', 'completed', 'cancelled', 'no_show')),
        type varchar(100),
        notes text,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        CONSTRAINT "EX_APPOINTMENTS_PROVIDER_ACTIVE_TIME" EXCLUDE USING gist (provider_id WITH =, tstzrange(starts_at, ends_at, '[)') WITH &&)
          WHERE (status IN ('scheduled', 'confirmed'))
      )`);
    await q.query(`CREATE INDEX "IDX_APPOINTMENTS_TENANT_MODE_STARTS" ON appointments (tenant_id, mode, starts_at, id)`);
    await q.query(`CREATE INDEX "IDX_APPOINTMENTS_TENANT_MODE_PROVIDER_STARTS" ON appointments (tenant_id, mode, provider_id, starts_at)`);
    await q.query(`CREATE INDEX "IDX_APPOINTMENTS_TENANT_MODE_PATIENT_STARTS" ON appointments (tenant_id, mode, patient_id, starts_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE appointments`);
    await q.query(`DROP TABLE provider_time_off`);
    await q.query(`DROP TABLE providers`);
  }
}
