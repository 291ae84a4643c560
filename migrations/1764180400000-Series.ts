import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Recurring series: one row per series, with its rule as written and each occurrence's outcome (the
 * appointment it booked, or why it was skipped). appointments.series_id names the series an occurrence
 * belongs to (null for a single booking); a series' occurrences are read by it.
 */
export class Series1764180400000 implements MigrationInterface {
  name = 'Series1764180400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE appointment_series (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        patient_id uuid NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
        provider_id uuid NOT NULL REFERENCES providers(id),
        appointment_type_id uuid REFERENCES appointment_types(id),
        duration integer NOT NULL CHECK (duration BETWEEN 5 AND 480),
        timezone varchar(64) NOT NULL,
        start_local varchar(16) NOT NULL,
        rrule varchar(500) NOT NULL,
        exdates text[] NOT NULL DEFAULT '{}',
        status varchar(10) NOT NULL CHECK (status IN ('active', 'cancelled')),
        occurrences jsonb NOT NULL DEFAULT '[]',
        override_policies boolean NOT NULL DEFAULT false,
        notes text,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX "IDX_APPOINTMENT_SERIES_TENANT_MODE_CREATED" ON appointment_series (tenant_id, mode, created_at, id)`);
    await q.query(
      `CREATE INDEX "IDX_APPOINTMENT_SERIES_TENANT_MODE_PATIENT_CREATED" ON appointment_series (tenant_id, mode, patient_id, created_at, id)`,
    );
    await q.query(`ALTER TABLE appointments ADD COLUMN series_id uuid REFERENCES appointment_series(id)`);
    await q.query(
      `CREATE INDEX "IDX_APPOINTMENTS_TENANT_MODE_SERIES" ON appointments (tenant_id, mode, series_id, starts_at) WHERE series_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_APPOINTMENTS_TENANT_MODE_SERIES"`);
    await q.query(`ALTER TABLE appointments DROP COLUMN series_id`);
    await q.query(`DROP TABLE appointment_series`);
  }
}
