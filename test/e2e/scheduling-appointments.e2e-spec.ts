import ICAL from 'ical.js';
import { client, createKey, createTenant, dataSource, startApp, type Problem } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { AppointmentsRepository } from '../../src/modules/scheduling/appointments/appointments.repository';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { createProvider, fieldsOf, SCHEDULING, type SlotUnavailable, weekdays } from '../helpers/scheduling';
import type { AppointmentDto, AppointmentListDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AvailabilityDto } from '../../src/modules/scheduling/availability/dto/availability.dto';
import type { ProviderDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type { PatientDto } from '../../src/modules/patients';
import type { ClinicalDataDto } from '../../src/modules/patients/dto/clinical.dto';

import { dayByDay, nextWeekday } from '../helpers/dates';
import { clock } from '../../src/common/time/clock';

type Status = 'scheduled' | 'confirmed' | 'completed' | 'cancelled' | 'no_show';
const STATUSES: Status[] = ['scheduled', 'confirmed', 'completed', 'cancelled', 'no_show'];
const ALLOWED = new Set([
  'scheduled>confirmed',
  'scheduled>cancelled',
  'scheduled>no_show',
  'scheduled>completed',
  'confirmed>completed',
  'confirmed>cancelled',
  'confirmed>no_show',
]);

describe('Scheduling: booking and appointments', () => {
  const suite = useApp(NO_RATE_LIMITS);
  let api: ReturnType<typeof client>;
  let provider: ProviderDto;
  let patient: PatientDto;
  // Every test books on its own day (weekdays from a month ahead, 09:00–17:00 UTC) so tests do not collide.
  const nextDay = dayByDay({ weekdaysOnly: true });

  beforeAll(async () => {
    api = suite.api();
    provider = await createProvider(suite.app, suite.tenant.testKey, {
      name: 'Dr. Ada',
      timezone: 'UTC',
      workingHours: weekdays('09:00', '17:00'),
    });
    patient = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Pat', lastName: 'Ient', email: 'pat@example.com' });
  });

  const book = <T = AppointmentDto>(body: Record<string, unknown>, key = suite.tenant.testKey) =>
    suite.api(key).post<T>(`${SCHEDULING}/book`, { patientId: patient.id, providerId: provider.id, ...body });

  async function booked(datetime: string, extra: Record<string, unknown> = {}): Promise<AppointmentDto> {
    const res = await book({ datetime, ...extra });
    if (res.status !== 201) throw new Error(`booking failed: ${res.status} ${res.text}`);
    return res.body;
  }

  describe('booking', () => {
    it('books: 201, status scheduled, patient embedded, Location, default duration 30; the slot leaves availability', async () => {
      const day = nextDay();
      const res = await book({ datetime: `${day}T10:00:00Z`, type: 'consultation', notes: 'First visit' });
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`/api/v1/scheduling/appointments/${res.body.id}`);
      expect(res.body).toEqual({
        id: expect.any(String),
        patientId: patient.id,
        providerId: provider.id,
        datetime: `${day}T10:00:00.000Z`,
        duration: 30,
        end: `${day}T10:30:00.000Z`,
        status: 'scheduled',
        type: 'consultation',
        notes: 'First visit',
        appointmentTypeId: null,
        seriesId: null,
        confirmedAt: null,
        cancelledAt: null,
        manageUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:3000\/api\/v1\/public\/appointments\/[\w.-]+$/),
        reminders: [],
        patient: expect.objectContaining({ id: patient.id, firstName: 'Pat', lastName: 'Ient', email: 'pat@example.com' }),
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const slots = await api.get<AvailabilityDto>(`${SCHEDULING}/availability?providerId=${provider.id}&startDate=${day}&endDate=${day}`);
      const starts = slots.body.slots.map((s) => s.start.slice(11, 16));
      expect(starts).toEqual(expect.arrayContaining(['09:30', '10:30']));
      expect(starts).not.toContain('09:45');
      expect(starts).not.toContain('10:00');
      expect(starts).not.toContain('10:15');
    });

    it('refuses an overlap with 409 slot_unavailable carrying the next three free slots of that duration', async () => {
      const day = nextDay();
      await booked(`${day}T09:00:00Z`, { duration: 60 });
      const res = await book<SlotUnavailable>({ datetime: `${day}T09:30:00Z`, duration: 45 });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('slot_unavailable');
      expect(res.body.alternatives).toEqual([
        { providerId: provider.id, start: `${day}T10:00:00.000Z`, end: `${day}T10:45:00.000Z` },
        { providerId: provider.id, start: `${day}T10:15:00.000Z`, end: `${day}T11:00:00.000Z` },
        { providerId: provider.id, start: `${day}T10:30:00.000Z`, end: `${day}T11:15:00.000Z` },
      ]);
      expect((await book({ datetime: `${day}T10:00:00Z`, duration: 45 })).status).toBe(201);
    });

    it('refuses a time outside working hours, in time off or in the past, each with alternatives', async () => {
      const day = nextDay();
      const late = await book<SlotUnavailable>({ datetime: `${day}T16:45:00Z` }); // would end 17:15
      expect(late.status).toBe(409);
      expect(late.body.code).toBe('slot_unavailable');
      expect(late.body.alternatives).toHaveLength(3);
      expect(Date.parse(late.body.alternatives[0].start)).toBeGreaterThan(Date.parse(`${day}T16:45:00Z`));

      const offDay = nextDay();
      const off = await api.post(`${SCHEDULING}/providers/${provider.id}/time-off`, {
        start: `${offDay}T00:00:00Z`,
        end: `${offDay}T12:00:00Z`,
      });
      expect(off.status).toBe(201);
      const inOff = await book<SlotUnavailable>({ datetime: `${offDay}T11:45:00Z` });
      expect(inOff.status).toBe(409);
      expect(inOff.body.alternatives[0].start).toBe(`${offDay}T12:00:00.000Z`);

      // A Monday at 10:00 between two and one weeks before the clock's today.
      const past = await book<SlotUnavailable>({ datetime: `${nextWeekday(1, -14)}T10:00:00Z` });
      expect(past.status).toBe(409);
      expect(past.body.code).toBe('slot_unavailable');
      expect(past.body.alternatives).toHaveLength(3);
      expect(past.body.alternatives.every((s) => Date.parse(s.start) > clock.nowMs())).toBe(true);
    });

    it('refuses ids of another tenant or mode with a 400 naming the field', async () => {
      const other = await createTenant(suite.app);
      const theirPatient = await createPatient(suite.app, other.testKey);
      const livePatient = await createPatient(suite.app, suite.tenant.liveKey);
      const theirProvider = await createProvider(suite.app, other.testKey);
      const day = nextDay();
      for (const [body, field] of [
        [{ patientId: theirPatient.id }, 'patientId'],
        [{ patientId: livePatient.id }, 'patientId'],
        [{ providerId: theirProvider.id }, 'providerId'],
      ] as const) {
        const res = await book<Problem>({ datetime: `${day}T09:00:00Z`, ...body });
        expect(res.status).toBe(400);
        expect(fieldsOf(res.body)).toEqual([field]);
      }
    });

    it.each([
      ['a huge duration', { duration: 481 }, ['duration']],
      ['a tiny duration', { duration: 4 }, ['duration']],
      ['a duration as a string', { duration: '30' }, ['duration']],
      ['a fractional duration', { duration: 30.5 }, ['duration']],
      ['an impossible date', { datetime: '2027-02-30T09:00:00Z' }, ['datetime']],
      ['a date-time without an offset', { datetime: '2027-03-01T09:00:00' }, ['datetime']],
      ['a malformed patientId', { patientId: 'nope' }, ['patientId']],
      ['a missing datetime', { datetime: undefined }, ['datetime']],
      ['an unknown property', { room: 4 }, ['room']],
    ])('refuses %s with a 400 naming the field', async (_label, body, fields) => {
      const res = await book<Problem>({ datetime: `${nextWeekday(1)}T09:00:00Z`, ...body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(fieldsOf(res.body)).toEqual(fields);
    });

    it('20 concurrent bookings of one slot on two API instances: exactly one 201, nineteen slot_unavailable', async () => {
      const second = await startApp(NO_RATE_LIMITS);
      try {
        const day = nextDay();
        const datetime = `${day}T13:00:00Z`;
        const patients = await Promise.all(Array.from({ length: 20 }, () => createPatient(suite.app, suite.tenant.testKey)));
        const results = await Promise.all(
          patients.map((p, i) =>
            client(i % 2 ? second : suite.app, suite.tenant.testKey).post<Problem>(`${SCHEDULING}/book`, {
              patientId: p.id,
              providerId: provider.id,
              datetime,
            }),
          ),
        );
        const statuses = results.map((r) => r.status);
        expect(statuses.filter((s) => s === 201)).toHaveLength(1);
        expect(statuses.filter((s) => s === 409)).toHaveLength(19);
        expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'slot_unavailable')).toBe(true);
        const [{ count }] = await dataSource(suite.app).query<{ count: number }[]>(
          `SELECT count(*)::int AS count FROM appointments WHERE provider_id = $1 AND starts_at = $2 AND status IN ('scheduled', 'confirmed')`,
          [provider.id, datetime],
        );
        expect(count).toBe(1);
      } finally {
        await second.close();
      }
    });

    it('frees the slot when an appointment is cancelled', async () => {
      const day = nextDay();
      const a = await booked(`${day}T11:00:00Z`);
      expect((await book({ datetime: `${day}T11:00:00Z` })).status).toBe(409);
      expect((await api.patch(`${SCHEDULING}/appointments/${a.id}`, { status: 'cancelled' })).status).toBe(200);
      expect((await book({ datetime: `${day}T11:00:00Z` })).status).toBe(201);
    });
  });

  describe('listing', () => {
    let other: PatientDto;
    let providerB: ProviderDto;
    let day: string;
    let ids: Record<string, string>;

    beforeAll(async () => {
      other = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Other' });
      providerB = await createProvider(suite.app, suite.tenant.testKey, { timezone: 'UTC', workingHours: weekdays('09:00', '17:00') });
      day = nextDay();
      // created out of datetime order, to show the list sorts by datetime and not creation
      const late = await booked(`${day}T15:00:00Z`);
      const early = await booked(`${day}T09:00:00Z`, { patientId: other.id });
      const mid = await booked(`${day}T12:00:00Z`, { providerId: providerB.id });
      await api.patch(`${SCHEDULING}/appointments/${mid.id}`, { status: 'confirmed' });
      ids = { late: late.id, early: early.id, mid: mid.id };
    });

    const list = async (params: string): Promise<string[]> => {
      const res = await api.get<AppointmentListDto>(
        `${SCHEDULING}/appointments?startDate=${day}T00:00:00Z&endDate=${day}T23:59:59Z${params}`,
      );
      expect(res.status).toBe(200);
      return res.body.appointments.map((a) => Object.keys(ids).find((k) => ids[k] === a.id) ?? a.id);
    };

    it('sorts by datetime ascending and embeds each patient', async () => {
      const res = await api.get<AppointmentListDto>(`${SCHEDULING}/appointments?startDate=${day}T00:00:00Z&endDate=${day}T23:59:59Z`);
      expect(res.body.appointments.map((a) => a.id)).toEqual([ids.early, ids.mid, ids.late]);
      expect(res.body.appointments[0].patient).toEqual(expect.objectContaining({ id: other.id, firstName: 'Other' }));
      expect(res.body.appointments[2].patient).toEqual(expect.objectContaining({ id: patient.id, email: 'pat@example.com' }));
    });

    it('filters by status, providerId, patientId and the datetime range', async () => {
      expect(await list('&status=confirmed')).toEqual(['mid']);
      expect(await list('&status=scheduled')).toEqual(['early', 'late']);
      expect(await list(`&providerId=${providerB.id}`)).toEqual(['mid']);
      expect(await list(`&patientId=${other.id}`)).toEqual(['early']);
      expect(await list(`&providerId=${provider.id}&patientId=${patient.id}`)).toEqual(['late']);
      const window = await api.get<AppointmentListDto>(`${SCHEDULING}/appointments?startDate=${day}T09:00:00Z&endDate=${day}T15:00:00Z`);
      expect(window.body.appointments.map((a) => a.id)).toEqual([ids.early, ids.mid]);
    });

    it('pages with a cursor in datetime order', async () => {
      const base = `${SCHEDULING}/appointments?startDate=${day}T00:00:00Z&endDate=${day}T23:59:59Z&limit=2`;
      const page1 = await api.get<AppointmentListDto>(base);
      expect(page1.body.appointments.map((a) => a.id)).toEqual([ids.early, ids.mid]);
      const page2 = await api.get<AppointmentListDto>(`${base}&cursor=${page1.body.nextCursor}`);
      expect(page2.body.appointments.map((a) => a.id)).toEqual([ids.late]);
      expect(page2.body.nextCursor).toBeNull();
    });

    it.each([
      ['an unknown status', '&status=booked', ['status']],
      ['a bad date', '&startDate=2027-13-01T00:00:00Z', ['startDate']],
      ['a reversed range', '&startDate=2027-02-01T00:00:00Z&endDate=2027-01-01T00:00:00Z', ['endDate']],
      ['a malformed providerId', '&providerId=1', ['providerId']],
      ['a forged cursor', `&cursor=${Buffer.from(JSON.stringify(['x', 'y'])).toString('base64url')}`, ['cursor']],
    ])('refuses %s with a 400 naming the field', async (_label, params, fields) => {
      const res = await api.get<Problem>(`${SCHEDULING}/appointments?limit=5${params}`);
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(fields);
    });
  });

  describe('transitions', () => {
    // Moves a new appointment to `from` along allowed steps, then asks for `to`.
    async function appointmentIn(from: Status): Promise<AppointmentDto> {
      const a = await booked(`${nextDay()}T09:00:00Z`);
      if (from !== 'scheduled') {
        const res = await api.patch(`${SCHEDULING}/appointments/${a.id}`, { status: from });
        expect(res.status).toBe(200);
      }
      return a;
    }

    const pairs = STATUSES.flatMap((from) => STATUSES.filter((to) => to !== from).map((to) => [from, to] as const));
    it.each(pairs)('%s -> %s follows the transition table', async (from, to) => {
      const a = await appointmentIn(from);
      const res = await api.patch<AppointmentDto>(`${SCHEDULING}/appointments/${a.id}`, { status: to });
      if (ALLOWED.has(`${from}>${to}`)) {
        expect(res.status).toBe(200);
        expect(res.body.status).toBe(to);
      } else {
        expect(res.status).toBe(409);
        expect(res.body).toMatchObject({ code: 'invalid_transition', from, to });
        expect((await api.get<AppointmentDto>(`${SCHEDULING}/appointments/${a.id}`)).body.status).toBe(from);
      }
    });

    it('records an encounter on completion, in the same transaction, and none when completion is refused', async () => {
      const a = await booked(`${nextDay()}T14:00:00Z`, { type: 'follow-up', notes: 'Bring results' });
      expect((await api.patch(`${SCHEDULING}/appointments/${a.id}`, { status: 'confirmed' })).status).toBe(200);
      const done = await api.patch(`${SCHEDULING}/appointments/${a.id}`, { status: 'completed' });
      expect(done.status).toBe(200);
      const clinical = await api.get<ClinicalDataDto>(`/api/v1/patients/${patient.id}/clinical`);
      const encounters = clinical.body.encounters.filter((e) => e.appointmentId === a.id);
      expect(encounters).toEqual([
        {
          id: expect.any(String),
          appointmentId: a.id,
          providerId: provider.id,
          datetime: a.datetime,
          type: 'follow-up',
          reason: null,
          notes: 'Bring results',
        },
      ]);
      // completing again is no change and records nothing more
      expect((await api.patch(`${SCHEDULING}/appointments/${a.id}`, { status: 'completed' })).status).toBe(200);

      const cancelled = await booked(`${nextDay()}T14:00:00Z`);
      await api.patch(`${SCHEDULING}/appointments/${cancelled.id}`, { status: 'cancelled' });
      expect((await api.patch(`${SCHEDULING}/appointments/${cancelled.id}`, { status: 'completed' })).status).toBe(409);
      const after = await api.get<ClinicalDataDto>(`/api/v1/patients/${patient.id}/clinical`);
      expect(after.body.encounters.filter((e) => e.appointmentId === a.id)).toHaveLength(1);
      expect(after.body.encounters.filter((e) => e.appointmentId === cancelled.id)).toEqual([]);
    });

    it('rolls the completion back when the encounter cannot be written', async () => {
      const a = await booked(`${nextDay()}T15:00:00Z`);
      // an encounter for this appointment exists already: the completion's encounter violates the unique index
      const manual = await api.post(`/api/v1/patients/${patient.id}/clinical/encounters`, { appointmentId: a.id, datetime: a.datetime });
      expect(manual.status).toBe(201);
      const res = await api.patch<Problem>(`${SCHEDULING}/appointments/${a.id}`, { status: 'completed' });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('encounter_exists');
      expect((await api.get<AppointmentDto>(`${SCHEDULING}/appointments/${a.id}`)).body.status).toBe('scheduled');
    });

    it('updates notes and type without a status change', async () => {
      const a = await booked(`${nextDay()}T16:00:00Z`, { notes: 'x' });
      const res = await api.patch<AppointmentDto>(`${SCHEDULING}/appointments/${a.id}`, { notes: null, type: 'Review' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ notes: null, type: 'Review', status: 'scheduled' });
      expect(fieldsOf((await api.patch<Problem>(`${SCHEDULING}/appointments/${a.id}`, { status: 'done' })).body)).toEqual(['status']);
      // Only notes and type can be cleared: null for any other member is refused, naming it.
      for (const field of ['status', 'datetime', 'duration']) {
        const refused = await api.patch<Problem>(`${SCHEDULING}/appointments/${a.id}`, { [field]: null });
        expect([refused.status, fieldsOf(refused.body)]).toEqual([400, [field]]);
      }
    });
  });

  describe('rescheduling', () => {
    it('moves an appointment to a free time, also overlapping its own old time', async () => {
      const day = nextDay();
      const a = await booked(`${day}T09:00:00Z`, { duration: 60 });
      const res = await api.patch<AppointmentDto>(`${SCHEDULING}/appointments/${a.id}`, { datetime: `${day}T09:30:00Z` });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ datetime: `${day}T09:30:00.000Z`, end: `${day}T10:30:00.000Z`, duration: 60 });
      const longer = await api.patch<AppointmentDto>(`${SCHEDULING}/appointments/${a.id}`, { duration: 90 });
      expect(longer.body).toMatchObject({ datetime: `${day}T09:30:00.000Z`, end: `${day}T11:00:00.000Z`, duration: 90 });
      // the old time is free again
      expect((await book({ datetime: `${day}T09:00:00Z` })).status).toBe(201);
    });

    it('refuses a conflicting, out-of-hours or past reschedule with slot_unavailable, and changes nothing', async () => {
      const day = nextDay();
      const a = await booked(`${day}T09:00:00Z`);
      await booked(`${day}T10:00:00Z`);
      const clash = await api.patch<SlotUnavailable>(`${SCHEDULING}/appointments/${a.id}`, { datetime: `${day}T09:45:00Z` });
      expect(clash.status).toBe(409);
      expect(clash.body.code).toBe('slot_unavailable');
      expect(clash.body.alternatives).toHaveLength(3);
      const late = await api.patch(`${SCHEDULING}/appointments/${a.id}`, { datetime: `${day}T20:00:00Z` });
      expect(late.status).toBe(409);
      const past = await api.patch(`${SCHEDULING}/appointments/${a.id}`, { datetime: '2024-01-01T10:00:00Z' });
      expect(past.status).toBe(409);
      const grow = await api.patch(`${SCHEDULING}/appointments/${a.id}`, { duration: 90 });
      expect(grow.status).toBe(409);
      expect((await api.get(`${SCHEDULING}/appointments/${a.id}`)).body).toMatchObject({ datetime: `${day}T09:00:00.000Z`, duration: 30 });
    });

    it("a booking and a reschedule wait for the provider's turn: neither answers while another transaction holds it", async () => {
      // Racing writes that check each other's uncommitted rows can deadlock past retries (500s on a starved
      // CPU); taking turns per provider makes each meet the winner's committed row instead.
      const day = nextDay();
      const a = await booked(`${day}T09:00:00Z`);
      const holder = dataSource(suite.app).createQueryRunner();
      await holder.connect();
      try {
        await holder.startTransaction();
        await suite.app
          .get(AppointmentsRepository)
          .lockProviderSchedule({ tenantId: suite.tenant.id, mode: 'test' }, provider.id, holder.manager);
        const answered: string[] = [];
        const booking = book({ datetime: `${day}T11:00:00Z` }).then((r) => (answered.push('booking'), r));
        const reschedule = api
          .patch(`${SCHEDULING}/appointments/${a.id}`, { datetime: `${day}T13:00:00Z` })
          .then((r) => (answered.push('reschedule'), r));
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(answered).toEqual([]);
        await holder.commitTransaction();
        expect((await booking).status).toBe(201);
        expect((await reschedule).status).toBe(200);
      } finally {
        await holder.release();
      }
    });

    it('10 concurrent reschedules onto one slot: exactly one 200, nine slot_unavailable, never a 500', async () => {
      const day = nextDay();
      const moving = await Promise.all(
        Array.from({ length: 10 }, (_, i) => booked(`${day}T${String(9 + (i >> 1)).padStart(2, '0')}:${i % 2 ? '30' : '00'}:00Z`)),
      );
      const target = `${nextDay()}T12:00:00Z`;
      const results = await Promise.all(moving.map((a) => api.patch<Problem>(`${SCHEDULING}/appointments/${a.id}`, { datetime: target })));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, ...Array<number>(9).fill(409)]);
      expect(results.filter((r) => r.status === 409).every((r) => r.body.code === 'slot_unavailable')).toBe(true);
      const [{ count }] = await dataSource(suite.app).query<{ count: number }[]>(
        `SELECT count(*)::int AS count FROM appointments WHERE provider_id = $1 AND starts_at = $2 AND status IN ('scheduled', 'confirmed')`,
        [provider.id, target],
      );
      expect(count).toBe(1);
    });

    it('refuses to reschedule a completed or cancelled appointment', async () => {
      const a = await booked(`${nextDay()}T09:00:00Z`);
      await api.patch(`${SCHEDULING}/appointments/${a.id}`, { status: 'cancelled' });
      const res = await api.patch(`${SCHEDULING}/appointments/${a.id}`, { datetime: `${nextDay()}T10:00:00Z` });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'invalid_transition', from: 'cancelled', to: 'rescheduled' });
    });
  });

  describe('iCalendar', () => {
    it('answers text/calendar that an iCalendar parser reads back as the appointment', async () => {
      const a = await booked(`${nextDay()}T11:00:00Z`, { duration: 45, type: 'Consultation' });
      const res = await api.get(`${SCHEDULING}/appointments/${a.id}.ics`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/calendar/);
      const calendar = ICAL.Component.fromString(res.text);
      const events = calendar.getAllSubcomponents('vevent');
      expect(events).toHaveLength(1);
      const event = new ICAL.Event(events[0]);
      expect(event.uid).toBe(a.id);
      expect(event.startDate.toJSDate().toISOString()).toBe(a.datetime);
      expect(event.endDate.toJSDate().toISOString()).toBe(a.end);
      expect(event.summary).toBe('Consultation with Dr. Ada');
      expect(events[0].getFirstPropertyValue('status')).toBe('TENTATIVE');
      expect(res.text).not.toContain('pat@example.com');

      await api.patch(`${SCHEDULING}/appointments/${a.id}`, { status: 'cancelled' });
      const cancelled = ICAL.Component.fromString((await api.get(`${SCHEDULING}/appointments/${a.id}.ics`)).text);
      expect(cancelled.getFirstSubcomponent('vevent')!.getFirstPropertyValue('status')).toBe('CANCELLED');
    });

    it('answers 404 for an unknown appointment', async () => {
      expect((await api.get(`${SCHEDULING}/appointments/00000000-0000-4000-8000-000000000000.ics`)).status).toBe(404);
    });
  });

  describe('access', () => {
    it("cannot see another tenant's or mode's appointments", async () => {
      const a = await booked(`${nextDay()}T12:00:00Z`);
      const other = await createTenant(suite.app);
      for (const key of [other.testKey, suite.tenant.liveKey]) {
        const them = suite.api(key);
        expect((await them.get(`${SCHEDULING}/appointments/${a.id}`)).status).toBe(404);
        expect((await them.get(`${SCHEDULING}/appointments/${a.id}.ics`)).status).toBe(404);
        expect((await them.patch(`${SCHEDULING}/appointments/${a.id}`, { status: 'cancelled' })).status).toBe(404);
        expect((await them.get<AppointmentListDto>(`${SCHEDULING}/appointments`)).body.appointments.map((x) => x.id)).not.toContain(a.id);
      }
      expect((await api.get<AppointmentDto>(`${SCHEDULING}/appointments/${a.id}`)).body.status).toBe('scheduled');
    });

    it('needs scheduling:write to book or change and scheduling:read to read', async () => {
      const a = await booked(`${nextDay()}T12:00:00Z`);
      const reader = await createKey(suite.app, suite.tenant.testKey, { scopes: ['scheduling:read'], role: 'STAFF' });
      const writer = await createKey(suite.app, suite.tenant.testKey, { scopes: ['scheduling:write'], role: 'STAFF' });
      expect((await suite.api(reader).get(`${SCHEDULING}/appointments/${a.id}`)).status).toBe(200);
      expect((await suite.api(reader).get(`${SCHEDULING}/appointments`)).status).toBe(200);
      const refused = await book<Problem>({ datetime: `${nextDay()}T12:00:00Z` }, reader);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('insufficient_scope');
      expect((await suite.api(reader).patch(`${SCHEDULING}/appointments/${a.id}`, { status: 'confirmed' })).status).toBe(403);
      expect((await suite.api(writer).get(`${SCHEDULING}/appointments/${a.id}`)).status).toBe(403);
      expect((await book({ datetime: `${nextDay()}T12:00:00Z` }, writer)).status).toBe(201);
      expect((await suite.api(writer).patch(`${SCHEDULING}/appointments/${a.id}`, { status: 'confirmed' })).status).toBe(200);
    });
  });
});
