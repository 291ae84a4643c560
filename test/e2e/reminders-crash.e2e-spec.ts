import { DateTime } from 'luxon';
import { clock } from '../../src/common/time/clock';
import { dataSource } from '../helpers/app';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AppointmentTypeDto } from '../../src/modules/scheduling/appointment-types/dto/appointment-type.dto';
import type { SmsTemplateDto } from '../../src/modules/sms/dto/sms-template.dto';
import { eventually } from '../helpers/eventually';
import { createPatient } from '../helpers/patients';
import { useAppWithWorkerProcesses } from '../helpers/crash-workers';
import { sleep } from '../helpers/processes';
import { bookAppointment, createProvider, everyDay, SCHEDULING } from '../helpers/scheduling';

/**
 * The reminder worker as its own process (`node dist/worker.js`, as deployed), killed with SIGKILL while
 * its reminders are being sent, then restarted: every reminder ends `sent` with exactly one message. The
 * worker runs with its clock weeks ahead of the API's, so every reminder the API planned is due for it at
 * once. The run's set-up builds `dist/`.
 */
const PROVIDERS = 4;
/** Appointments per provider: 10:00 to 19:30 UTC (texts outside quiet hours), day after day. */
const PER_PROVIDER = 100;
const TOTAL = PROVIDERS * PER_PROVIDER;
const DAY = 86_400_000;

describe('Reminders survive their worker being killed while they are due (dist/worker.js)', () => {
  // The API books and plans; only the child processes send.
  const { suite, startWorker } = useAppWithWorkerProcesses('reminders-crash', 60 * DAY);

  it('sends each reminder exactly once across a SIGKILL', async () => {
    const key = suite.tenant.testKey;
    // The manage link makes each text unique to its appointment.
    const template = await suite.api(key).post<SmsTemplateDto>('/api/v1/sms/templates', {
      name: 'R',
      body: 'See you {{appointment.manageUrl}}',
    });
    const type = await suite.api(key).post<AppointmentTypeDto>(`${SCHEDULING}/appointment-types`, {
      name: 'Visit',
      durationMinutes: 30,
      reminders: [{ offsetMinutes: 60, channel: 'sms', templateId: template.body.id }],
    });
    expect(type.status).toBe(201);
    const patient = await createPatient(suite.app, key, { phone: '+12025550177' });
    const providers = await Promise.all(
      Array.from({ length: PROVIDERS }, () => createProvider(suite.app, key, { timezone: 'UTC', workingHours: everyDay() })),
    );
    const firstDay = DateTime.fromMillis(clock.nowMs(), { zone: 'utc' }).startOf('day').plus({ days: 10 });
    const slots = Array.from({ length: PER_PROVIDER }, (_, i) =>
      firstDay.plus({ days: Math.floor(i / 20), hours: 10, minutes: 30 * (i % 20) }),
    );
    // One booking at a time per provider (they take turns at its schedule anyway), the providers side by side.
    const appointments: AppointmentDto[] = [];
    for (const start of slots) {
      appointments.push(
        ...(await Promise.all(
          providers.map((provider) =>
            bookAppointment(suite.app, key, {
              patientId: patient.id,
              providerId: provider.id,
              appointmentTypeId: type.body.id,
              datetime: start.toISO()!,
            }),
          ),
        )),
      );
    }
    expect(appointments.flatMap((a) => a.reminders.map((r) => r.status))).toEqual(Array(TOTAL).fill('scheduled'));

    const statuses = async (table: 'appointment_reminders' | 'sms_messages'): Promise<Record<string, number>> => {
      const rows: { status: string; n: string }[] = await dataSource(suite.app).query(
        `SELECT status, count(*) AS n FROM ${table} WHERE tenant_id = $1 GROUP BY status`,
        [suite.tenant.id],
      );
      return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
    };
    const counts = () => statuses('appointment_reminders');

    const first = startWorker();
    await eventually(async () => expect((await counts()).sent ?? 0).toBeGreaterThan(0), 90_000, 20).catch((err) => {
      throw new Error(`${String(err)}\nworker output: ${first.output}`);
    });
    await sleep(100);
    await first.stop('SIGKILL');
    const atKill = (await counts()).sent ?? 0;

    const second = startWorker();
    // A reminder is `sent` once its message is queued; the message's own send follows.
    const allSent = async (): Promise<void> => {
      expect(await counts()).toEqual({ sent: TOTAL });
      expect(await statuses('sms_messages')).toEqual({ sent: TOTAL });
    };
    await eventually(allSent, 120_000).catch((err) => {
      throw new Error(`${String(err)}\nworker output: ${second.output}`);
    });
    expect((await second.stop('SIGTERM')).code).toBe(0);

    // One message per reminder, the one it names, and every message sent.
    const messages: { body: string; n: string; status: string }[] = await dataSource(suite.app).query(
      `SELECT body, count(*) AS n, min(status) AS status FROM sms_messages WHERE tenant_id = $1 GROUP BY body`,
      [suite.tenant.id],
    );
    const duplicated = messages.filter((m) => Number(m.n) > 1);
    const named: { n: string }[] = await dataSource(suite.app).query(
      `SELECT count(DISTINCT r.message_id) AS n FROM appointment_reminders r JOIN sms_messages m ON m.id = r.message_id WHERE r.tenant_id = $1`,
      [suite.tenant.id],
    );
    process.stdout.write(
      `reminders-crash: ${TOTAL} reminders due at once, worker SIGKILLed with ${atKill} sent: ` +
        `lost ${TOTAL - messages.length}, duplicated ${duplicated.length}\n`,
    );
    expect(atKill).toBeLessThan(TOTAL);
    expect(duplicated).toEqual([]);
    expect(messages).toHaveLength(TOTAL);
    expect(Number(named[0].n)).toBe(TOTAL);
    expect(messages.map((m) => m.status)).toEqual(Array(TOTAL).fill('sent'));
  }, 300_000);
});
