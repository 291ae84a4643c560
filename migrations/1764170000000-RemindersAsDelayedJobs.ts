import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A reminder's send job is recorded in the job outbox with its due time when the reminder is planned, so the
 * sweep that looked for due reminders, and `enqueued_until`, its lease on a row, go, and so does the index
 * it read (IDX_APPOINTMENT_REMINDERS_DUE). Each reminder still scheduled gets its job here, as the planning
 * would have recorded it (job id `<id>_<sendAt in ms>`, due at `send_at`). A migration does not know the
 * app's REDIS_PREFIX: the rows have none, and the first relay to take them makes them its own.
 */
export class RemindersAsDelayedJobs1764170000000 implements MigrationInterface {
  name = 'RemindersAsDelayedJobs1764170000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      INSERT INTO job_outbox (id, prefix, name, job_id, payload, options, run_at, available_at)
      SELECT gen_random_uuid(), '', 'reminder-send', j.job_id,
             jsonb_build_object('reminderId', r.id, 'appointmentId', r.appointment_id,
                                'sendAt', to_char(r.send_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                                'tenantId', r.tenant_id, 'mode', r.mode),
             jsonb_build_object('jobId', j.job_id), r.send_at, clock_timestamp()
        FROM appointment_reminders r,
             LATERAL (SELECT r.id || '_' || (extract(epoch FROM r.send_at) * 1000)::bigint AS job_id) j
       WHERE r.status = 'scheduled'`);
    await q.query(`DROP INDEX "IDX_APPOINTMENT_REMINDERS_DUE"`);
    await q.query(`ALTER TABLE appointment_reminders DROP COLUMN enqueued_until`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE appointment_reminders ADD COLUMN enqueued_until timestamptz(3)`);
    await q.query(`CREATE INDEX "IDX_APPOINTMENT_REMINDERS_DUE" ON appointment_reminders (send_at) WHERE status = 'scheduled'`);
    await q.query(`DELETE FROM job_outbox WHERE name = 'reminder-send'`);
  }
}
