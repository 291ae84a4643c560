import { useSchemaBefore } from '../helpers/migrations';

/** The migration that records the reminders' send jobs in the job outbox: everything before it is the old schema. */
const REMINDER_JOBS = 1764170000000;

/**
 * The reminders a database already holds when it is upgraded, on a database of its own held at the schema
 * before: each one still scheduled gets its send job in the job outbox, due at its time, so none is lost with
 * the sweep; the others get none, and the sweep's lease column and index are gone.
 */
describe('Migration recording the scheduled reminders as delayed jobs', () => {
  const schema = useSchemaBefore(REMINDER_JOBS, 'reminder_jobs');

  it('records one send job per scheduled reminder, due at its send_at, and drops the lease column and the due index', async () => {
    const { db } = schema;
    await db.query(`INSERT INTO tenants (id, name, created_at) VALUES (gen_random_uuid(), 'Clinic', now())`);
    await db.query(
      `INSERT INTO providers (id, tenant_id, mode, name, timezone, working_hours, is_active, created_at, updated_at)
       SELECT gen_random_uuid(), t.id, m, 'Dr. ' || m, 'UTC', '{}', true, now(), now() FROM tenants t, unnest(ARRAY['test', 'live']) m`,
    );
    await db.query(
      `INSERT INTO patients (id, tenant_id, mode, joining_code, first_name, last_name, patient_type, patient_status, tags, created_at, updated_at)
       SELECT gen_random_uuid(), tenant_id, mode, translate(lpad(row_number() OVER ()::text, 8, '0'), '0123456789', 'QXZVJKWYPU'),
              'Pat', 'Ient', 'patient', 'active', '{}', now(), now() FROM providers`,
    );
    await db.query(
      `INSERT INTO appointments (id, tenant_id, mode, patient_id, provider_id, starts_at, ends_at, duration, status, created_at, updated_at, manage_id)
       SELECT gen_random_uuid(), pr.tenant_id, pr.mode, pa.id, pr.id, at, at + interval '15 minutes', 15, 'scheduled', now(), now(),
              substr(md5(pr.id::text), 1, 16)
         FROM providers pr JOIN patients pa ON pa.tenant_id = pr.tenant_id AND pa.mode = pr.mode,
              LATERAL (SELECT date_trunc('second', now()) + interval '3 days' AS at) t`,
    );
    // Per appointment: two scheduled (one leased by a sweep, one not yet), one sent, one cancelled.
    await db.query(
      `INSERT INTO appointment_reminders (id, tenant_id, mode, appointment_id, channel, offset_minutes, template_id, send_at, status,
                                          reason, message_id, enqueued_until, created_at, updated_at)
       SELECT gen_random_uuid(), a.tenant_id, a.mode, a.id, 'email', r.offset_minutes, gen_random_uuid(),
              a.starts_at - make_interval(mins => r.offset_minutes) + interval '0.123 seconds', r.status, NULL, NULL, r.lease, now(), now()
         FROM appointments a,
              (VALUES (1440, 'scheduled', now() + interval '30 seconds'), (60, 'scheduled', NULL::timestamptz),
                      (2880, 'sent', NULL), (30, 'cancelled', NULL)) r(offset_minutes, status, lease)`,
    );
    const scheduled = (
      await db.query<{ id: string; appointment_id: string; tenant_id: string; mode: string; send_at: Date }>(
        `SELECT id, appointment_id, tenant_id, mode, send_at FROM appointment_reminders WHERE status = 'scheduled' ORDER BY id`,
      )
    ).rows;
    expect(scheduled).toHaveLength(4);

    await schema.migrate();

    const jobs = (
      await db.query<{
        prefix: string;
        name: string;
        job_id: string;
        payload: unknown;
        options: unknown;
        run_at: Date;
        added_at: Date | null;
      }>(`SELECT prefix, name, job_id, payload, options, run_at, added_at FROM job_outbox ORDER BY payload->>'reminderId'`)
    ).rows;
    expect(jobs).toEqual(
      scheduled.map((r) => {
        const jobId = `${r.id}_${r.send_at.getTime()}`;
        return {
          prefix: '',
          name: 'reminder-send',
          job_id: jobId,
          payload: {
            reminderId: r.id,
            appointmentId: r.appointment_id,
            sendAt: r.send_at.toISOString(),
            tenantId: r.tenant_id,
            mode: r.mode,
          },
          options: { jobId },
          run_at: r.send_at,
          added_at: null,
        };
      }),
    );
    const column = await db.query(
      `SELECT 1 FROM information_schema.columns WHERE table_name = 'appointment_reminders' AND column_name = 'enqueued_until'`,
    );
    expect(column.rows).toEqual([]);
    const index = await db.query(`SELECT 1 FROM pg_indexes WHERE indexname = 'IDX_APPOINTMENT_REMINDERS_DUE'`);
    expect(index.rows).toEqual([]);
  });
});
