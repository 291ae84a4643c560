import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Appointment types with their booking policies, and what appointments and schedulers take from them.
 * - appointment_types: one row per kind of visit; provider_ids (empty: every active provider) and the
 *   reminders' templates are checked against the tenant and mode when written.
 * - appointments.appointment_type_id: the type an appointment was booked as (null for one booked with a
 *   bare duration); its buffers widen the appointment whenever another is booked around it.
 *   confirmed_at / cancelled_at: when it reached those statuses.
 * - schedulers: a page books either a bare duration (and free-text type) or an appointment type, never both.
 */
export class AppointmentTypes1764080000000 implements MigrationInterface {
  name = 'AppointmentTypes1764080000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE appointment_types (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        name varchar(100) NOT NULL,
        duration_minutes integer NOT NULL CHECK (duration_minutes BETWEEN 5 AND 480),
        buffer_before_minutes integer NOT NULL DEFAULT 0 CHECK (buffer_before_minutes BETWEEN 0 AND 240),
        buffer_after_minutes integer NOT NULL DEFAULT 0 CHECK (buffer_after_minutes BETWEEN 0 AND 240),
        minimum_notice_minutes integer NOT NULL DEFAULT 0 CHECK (minimum_notice_minutes BETWEEN 0 AND 43200),
        booking_horizon_days integer NOT NULL DEFAULT 365 CHECK (booking_horizon_days BETWEEN 1 AND 730),
        slot_interval_minutes integer NOT NULL CHECK (slot_interval_minutes BETWEEN 5 AND 240),
        max_per_day_per_provider integer CHECK (max_per_day_per_provider BETWEEN 1 AND 100),
        cancellation_window_minutes integer NOT NULL DEFAULT 1440 CHECK (cancellation_window_minutes BETWEEN 0 AND 43200),
        provider_ids uuid[] NOT NULL DEFAULT '{}',
        reminders jsonb NOT NULL DEFAULT '[]',
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX "IDX_APPOINTMENT_TYPES_TENANT_MODE_CREATED" ON appointment_types (tenant_id, mode, created_at, id)`);
    await q.query(`
      ALTER TABLE appointments
        ADD COLUMN appointment_type_id uuid REFERENCES appointment_types(id),
        ADD COLUMN confirmed_at timestamptz(3),
        ADD COLUMN cancelled_at timestamptz(3)`);
    await q.query(`
      ALTER TABLE schedulers
        ADD COLUMN appointment_type_id uuid REFERENCES appointment_types(id),
        ALTER COLUMN duration DROP NOT NULL,
        ADD CHECK ((duration IS NULL) <> (appointment_type_id IS NULL))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM schedulers WHERE appointment_type_id IS NOT NULL`);
    await q.query(
      `ALTER TABLE schedulers DROP CONSTRAINT schedulers_check, DROP COLUMN appointment_type_id, ALTER COLUMN duration SET NOT NULL`,
    );
    await q.query(`ALTER TABLE appointments DROP COLUMN appointment_type_id, DROP COLUMN confirmed_at, DROP COLUMN cancelled_at`);
    await q.query(`DROP TABLE appointment_types`);
  }
}
