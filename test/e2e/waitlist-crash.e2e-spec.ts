import { DateTime } from 'luxon';
import { clock } from '../../src/common/time/clock';
import { dataSource } from '../helpers/app';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AppointmentTypeDto } from '../../src/modules/scheduling/appointment-types/dto/appointment-type.dto';
import type { PatientDto } from '../../src/modules/patients';
import { eventually } from '../helpers/eventually';
import { createPatient } from '../helpers/patients';
import { useAppWithWorkerProcesses } from '../helpers/crash-workers';
import { sleep } from '../helpers/processes';
import { bookAppointment, createProvider, everyDay, SCHEDULING } from '../helpers/scheduling';

/**
 * The waitlist's worker as its own process (`node dist/worker.js`, as deployed), killed with SIGKILL while it
 * is offering freed time, then restarted: each freeing ends with exactly one offer and one message. Every
 * provider's appointment is cancelled before the worker starts, so all the freeings are due at once, and
 * every entry fits every provider's time (the type is every provider's), so concurrent freeings race for
 * the same oldest entries. The run's set-up builds `dist/`.
 */
const FREEINGS = 60;

describe('Waitlist offers survive their worker being killed while time is freed (dist/worker.js)', () => {
  // The API books, cancels and records the freeings; only the child processes offer.
  const { suite, startWorker } = useAppWithWorkerProcesses('waitlist-crash');

  it('makes one offer and one message per freeing across a SIGKILL', async () => {
    const key = suite.tenant.testKey;
    const type = await suite.api(key).post<AppointmentTypeDto>(`${SCHEDULING}/appointment-types`, { name: 'Visit', durationMinutes: 30 });
    expect(type.status).toBe(201);
    const providers = await Promise.all(
      Array.from({ length: FREEINGS }, () => createProvider(suite.app, key, { timezone: 'UTC', workingHours: everyDay() })),
    );
    const booker = await createPatient(suite.app, key, { email: 'booked@waitlist-crash.test' });
    const start = DateTime.fromMillis(clock.nowMs(), { zone: 'utc' }).startOf('day').plus({ days: 10, hours: 10 }).toISO()!;
    const booked: AppointmentDto[] = await Promise.all(
      providers.map((p) =>
        bookAppointment(suite.app, key, { patientId: booker.id, providerId: p.id, appointmentTypeId: type.body.id, datetime: start }),
      ),
    );
    const waiting: PatientDto[] = [];
    for (let i = 0; i < FREEINGS; i++) {
      const patient = await createPatient(suite.app, key, { email: `waiter${i}@waitlist-crash.test` });
      waiting.push(patient);
      const entry = await suite.api(key).post(`${SCHEDULING}/waitlist`, { patientId: patient.id, appointmentTypeId: type.body.id });
      expect(entry.status).toBe(201);
    }
    for (const appointment of booked) {
      expect((await suite.api(key).patch(`${SCHEDULING}/appointments/${appointment.id}`, { status: 'cancelled' })).status).toBe(200);
    }

    const count = async (sql: string): Promise<number> =>
      Number((await dataSource(suite.app).query<{ n: string }[]>(sql, [suite.tenant.id]))[0].n);
    const offers = () => count(`SELECT count(*) AS n FROM waitlist_offers WHERE tenant_id = $1`);

    const first = startWorker();
    await eventually(async () => expect(await offers()).toBeGreaterThan(0), 90_000, 20).catch((err) => {
      throw new Error(`${String(err)}\nworker output: ${first.output}`);
    });
    await sleep(50);
    await first.stop('SIGKILL');
    const atKill = await offers();

    const second = startWorker();
    await eventually(async () => {
      expect(await offers()).toBe(FREEINGS);
      expect(
        await count(`SELECT count(*) AS n FROM email_messages WHERE tenant_id = $1 AND kind = 'waitlist_offer' AND status = 'sent'`),
      ).toBe(FREEINGS);
    }, 120_000).catch((err) => {
      throw new Error(`${String(err)}\nworker output: ${second.output}`);
    });
    expect((await second.stop('SIGTERM')).code).toBe(0);

    // One offer per freeing and per entry, each with its own hold, and one message to each waiting patient.
    expect(await count(`SELECT count(DISTINCT freeing_id) AS n FROM waitlist_offers WHERE tenant_id = $1`)).toBe(FREEINGS);
    expect(await count(`SELECT count(DISTINCT entry_id) AS n FROM waitlist_offers WHERE tenant_id = $1`)).toBe(FREEINGS);
    expect(
      await count(
        `SELECT count(*) AS n FROM holds h JOIN waitlist_offers o ON o.hold_id = h.id WHERE h.tenant_id = $1 AND h.status = 'active'`,
      ),
    ).toBe(FREEINGS);
    expect(await count(`SELECT count(*) AS n FROM waitlist_entries WHERE tenant_id = $1 AND status = 'offered'`)).toBe(FREEINGS);
    const messages: { patient_id: string; n: string }[] = await dataSource(suite.app).query(
      `SELECT patient_id, count(*) AS n FROM email_messages WHERE tenant_id = $1 AND kind = 'waitlist_offer' GROUP BY patient_id`,
      [suite.tenant.id],
    );
    expect(messages.map((m) => m.patient_id).sort()).toEqual(waiting.map((p) => p.id).sort());
    expect(messages.filter((m) => Number(m.n) !== 1)).toEqual([]);
    process.stdout.write(`waitlist-crash: ${FREEINGS} freeings due at once, worker SIGKILLed with ${atKill} offered\n`);
    expect(atKill).toBeLessThan(FREEINGS);
  }, 300_000);
});
