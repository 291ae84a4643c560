import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Appointment reminders: one row per reminder rule of the appointment's type, planned in the booking's (or
 * the reschedule's) transaction. `status` moves scheduled → sent | suppressed | failed (by the send job,
 * which claims the row and queues its message in one transaction) or scheduled → cancelled (a cancel,
 * no-show, completion or reschedule of the appointment); a reminder whose time had passed at planning, or
 * that quiet hours push past the start, is written `skipped`. `message_id` is the email or SMS message it
 * queued (no foreign key: it names a row of one of two tables). IDX_APPOINTMENT_REMINDERS_DUE is the
 * sweep's: the scheduled rows whose time has come, across tenants; `enqueued_until` is its lease on a row
 * whose send job it has recorded, so it is not recorded again every pass.
 */
export class AppointmentReminders1764100000000 implements MigrationInterface {
  name = 'AppointmentReminders1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE appointment_reminders (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        appointment_id uuid NOT NULL REFERENCES appointments(id) ON DELETE CASCADE,
        channel varchar(5) NOT NULL CHECK (channel IN ('email', 'sms')),
        offset_minutes integer NOT NULL CHECK (offset_minutes BETWEEN 1 AND 43200),
        template_id uuid NOT NULL,
        send_at timestamptz(3) NOT NULL,
        status varchar(10) NOT NULL CHECK (status IN ('scheduled', 'sent', 'skipped', 'suppressed', 'cancelled', 'failed')),
        reason varchar(200),
        message_id uuid,
        enqueued_until timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(
      `CREATE INDEX "IDX_APPOINTMENT_REMINDERS_TENANT_MODE_APPOINTMENT" ON appointment_reminders (tenant_id, mode, appointment_id, send_at, id)`,
    );
    await q.query(`CREATE INDEX "IDX_APPOINTMENT_REMINDERS_DUE" ON appointment_reminders (send_at) WHERE status = 'scheduled'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE appointment_reminders`);
  }
}
