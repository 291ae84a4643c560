import { call, client, createTenant, dataSource, startApp, type Problem } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import type { EventPageOf } from '../helpers/events';
import type { AuditLogDto } from '../../src/modules/audit/dto/audit-entry.dto';
import type {
  PublicAvailabilityDto,
  PublicBookingResultDto,
  PublicSchedulerDto,
  PublicSlotDto,
} from '../../src/modules/booking-pages/dto/public-scheduler.dto';
import type { SchedulerDto } from '../../src/modules/booking-pages/dto/scheduler.dto';
import type { PatientListDto } from '../../src/modules/patients/dto/patient.dto';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { ProviderDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import { auditEntries } from '../helpers/audit';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { createProvider, createScheduler, everyDay, fieldsOf, SCHEDULERS, SCHEDULING, type SlotUnavailable } from '../helpers/scheduling';

import { dayByDay } from '../helpers/dates';

const PUBLIC = '/api/v1/public/schedulers';
/** Per-IP limits off too: these tests send bursts from one address (the limits have their own test below). */
const UNLIMITED = { ...NO_RATE_LIMITS, RATE_LIMIT_IP_PER_SECOND: '0', RATE_LIMIT_IP_PER_HOUR: '0' };

describe('Public booking pages: /public/schedulers/{id} without a key', () => {
  const suite = useApp({ ...UNLIMITED, WORKERS: 'off', AUDIT_FLUSH_INTERVAL_MS: '50' });
  let api: ReturnType<typeof client>;
  let provider: ProviderDto;
  // Every test books on its own day from a month ahead (providers work every day 09:00–17:00 UTC).
  const nextDay = dayByDay();
  let people = 0;
  const person = (extra: Record<string, unknown> = {}) => ({
    firstName: 'Grace',
    lastName: `Booker${++people}`,
    email: `booker${people}@example.com`,
    ...extra,
  });

  const anonymous = <T = unknown>(method: 'GET' | 'POST', url: string, body?: unknown, remoteAddress = '198.51.100.7') =>
    call<T>(suite.app, method, url, { body, remoteAddress });
  const book = <T = PublicBookingResultDto>(schedulerId: string, body: Record<string, unknown>) =>
    anonymous<T>('POST', `${PUBLIC}/${schedulerId}/book`, body);
  const schedulerOf = async (id: string, key = suite.tenant.testKey) =>
    (await suite.api(key).get<SchedulerDto>(`${SCHEDULERS}/${id}`)).body;

  beforeAll(async () => {
    api = suite.api();
    provider = await createProvider(suite.app, suite.tenant.testKey, {
      name: 'Dr. Ada',
      timezone: 'UTC',
      workingHours: everyDay('09:00', '17:00'),
    });
  });

  describe('the page', () => {
    it('answers the page without a key, counts each view, and shows no counters and no provider ids', async () => {
      const inactiveProvider = await createProvider(suite.app, suite.tenant.testKey, { name: 'Dr. Away', isActive: false });
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id, inactiveProvider.id], {
        name: 'Check-up',
        description: 'Yearly check-up',
        type: 'check-up',
        duration: 20,
      });
      const res = await anonymous('GET', `${PUBLIC}/${s.id}`);
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toEqual({
        id: s.id,
        name: 'Check-up',
        slug: 'check-up',
        description: 'Yearly check-up',
        duration: 20,
        type: 'check-up',
        requirePhone: false,
        providers: [{ name: 'Dr. Ada', timezone: 'UTC' }],
      });
      expect(res.text).not.toContain(provider.id);
      expect(res.text).not.toContain(suite.tenant.id);
      await anonymous('GET', `${PUBLIC}/${s.id}`);
      expect(await schedulerOf(s.id)).toMatchObject({ viewsCount: 2, bookingsCount: 0, conversionRate: 0 });
    });

    it('answers 404 for an inactive, unknown or malformed id on every public route, counting nothing', async () => {
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id]);
      await api.patch(`${SCHEDULERS}/${s.id}`, { isActive: false });
      const day = nextDay();
      for (const id of [s.id, '00000000-0000-4000-8000-000000000000', 'not-an-id']) {
        expect((await anonymous('GET', `${PUBLIC}/${id}`)).status).toBe(404);
        expect((await anonymous('GET', `${PUBLIC}/${id}/availability?startDate=${day}&endDate=${day}`)).status).toBe(404);
        const refused = await book<Problem>(id, person({ datetime: `${day}T10:00:00Z` }));
        expect([refused.status, refused.body.code]).toEqual([404, 'not_found']);
      }
      expect(await schedulerOf(s.id)).toMatchObject({ viewsCount: 0, bookingsCount: 0 });
      // Active again: the page answers.
      await api.patch(`${SCHEDULERS}/${s.id}`, { isActive: true });
      expect((await anonymous('GET', `${PUBLIC}/${s.id}`)).status).toBe(200);
    });
  });

  describe('availability', () => {
    it("lists the page's duration slots across its providers, each time once, without provider ids", async () => {
      const second = await createProvider(suite.app, suite.tenant.testKey, { timezone: 'UTC', workingHours: everyDay('16:00', '18:00') });
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id, second.id], { duration: 60 });
      const day = nextDay();
      const res = await anonymous<PublicAvailabilityDto>('GET', `${PUBLIC}/${s.id}/availability?startDate=${day}&endDate=${day}`);
      expect(res.status).toBe(200);
      const starts = res.body.slots.map((x) => x.start.slice(11, 16));
      // 60-minute slots on a 15-minute grid: 09:00–16:00 from the first provider, 16:00–17:00 from both (once), 17:00 from the second.
      expect(starts[0]).toBe('09:00');
      expect(starts.at(-1)).toBe('17:00');
      expect(new Set(starts).size).toBe(starts.length);
      expect(res.body.slots[0]).toEqual({ start: `${day}T09:00:00.000Z`, end: `${day}T10:00:00.000Z` });
      expect(res.text).not.toContain(provider.id);

      // A booked time leaves it (here only the first provider works at 10:00).
      expect((await book(s.id, person({ datetime: `${day}T10:00:00Z` }))).status).toBe(201);
      const after = await anonymous<PublicAvailabilityDto>('GET', `${PUBLIC}/${s.id}/availability?startDate=${day}&endDate=${day}`);
      expect(after.body.slots.map((x) => x.start)).not.toContain(`${day}T10:00:00.000Z`);
      expect(after.body.slots.map((x) => x.start)).not.toContain(`${day}T09:30:00.000Z`);
    });

    it('answers 400 naming the field for bad or reversed ranges and ranges over 31 days', async () => {
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id]);
      const cases: [string, string[]][] = [
        ['', ['startDate', 'endDate']],
        ['startDate=2027-02-30&endDate=2027-03-01', ['startDate']],
        ['startDate=2027-03-10&endDate=2027-03-01', ['endDate']],
        ['startDate=2027-01-01&endDate=2027-03-01', ['startDate', 'endDate']],
        ['startDate=2027-03-01&endDate=2027-03-02&duration=30', ['duration']],
      ];
      for (const [query, fields] of cases) {
        const res = await anonymous<Problem>('GET', `${PUBLIC}/${s.id}/availability?${query}`);
        expect([res.status, query]).toEqual([400, query]);
        expect(fieldsOf(res.body).sort()).toEqual([...fields].sort());
      }
    });
  });

  describe('booking', () => {
    it('books: 201 with the appointment id and time, a new lead patient, the scheduler type and duration, counted', async () => {
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id], { duration: 45, type: 'first-visit' });
      const day = nextDay();
      const res = await book(s.id, person({ email: 'Ada.Lead@Example.com', phone: '+44 20 7946 0000', datetime: `${day}T11:00:00+00:00` }));
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`/api/v1/scheduling/appointments/${res.body.id}`);
      expect(res.body).toEqual({
        id: expect.any(String),
        schedulerId: s.id,
        datetime: `${day}T11:00:00.000Z`,
        end: `${day}T11:45:00.000Z`,
        duration: 45,
        status: 'scheduled',
        type: 'first-visit',
        provider: { name: 'Dr. Ada', timezone: 'UTC' },
        manageUrl: expect.stringMatching(/\/api\/v1\/public\/appointments\/[\w.-]+$/),
      });
      const appointment = (await api.get<AppointmentDto>(`${SCHEDULING}/appointments/${res.body.id}`)).body;
      // The patient's own link, the one the keyed API shows for the appointment.
      expect(res.body.manageUrl).toBe(appointment.manageUrl);
      expect(appointment).toMatchObject({ providerId: provider.id, status: 'scheduled', duration: 45, type: 'first-visit' });
      expect(appointment.patient).toMatchObject({
        email: 'Ada.Lead@Example.com',
        phone: '+442079460000',
        patientType: 'lead',
      });
      expect(res.text).not.toContain(appointment.patient.id);
      expect(await schedulerOf(s.id)).toMatchObject({ bookingsCount: 1 });
    });

    it('a retry with the same Idempotency-Key replays the booking, kept per page; without a key the retry is 409 as before', async () => {
      const [s, elsewhere] = await Promise.all([
        createScheduler(suite.app, suite.tenant.testKey, [provider.id], { duration: 30 }),
        createScheduler(suite.app, suite.tenant.testKey, [provider.id], { duration: 30 }),
      ]);
      const day = nextDay();
      const body = person({ datetime: `${day}T13:00:00+00:00` });
      const withKey = (schedulerId: string, sent: Record<string, unknown>, key = 'page-retry-1') =>
        call<{ id?: string; code?: string }>(suite.app, 'POST', `${PUBLIC}/${schedulerId}/book`, {
          body: sent,
          headers: { 'idempotency-key': key },
          remoteAddress: '198.51.100.7',
        });
      const first = await withKey(s.id, body);
      expect([first.status, first.headers['idempotent-replayed']]).toEqual([201, undefined]);
      const again = await withKey(s.id, body);
      expect([again.status, again.headers['idempotent-replayed'], again.headers.location]).toEqual([201, 'true', first.headers.location]);
      expect(again.body).toEqual(first.body);
      // The same key with another booking is refused; no key: the time is taken, as before.
      const other = await withKey(s.id, { ...body, datetime: `${day}T14:00:00+00:00` });
      expect([other.status, other.body.code]).toEqual([422, 'idempotency_key_reused']);
      const plain = await book<Problem>(s.id, body);
      expect([plain.status, plain.body.code]).toEqual([409, 'slot_unavailable']);
      // Another page's use of the key is a booking of its own.
      const second = await withKey(elsewhere.id, { ...body, datetime: `${day}T15:00:00+00:00` });
      expect(second.status).toBe(201);
      expect(second.body.id).not.toBe(first.body.id);
      expect(await schedulerOf(s.id)).toMatchObject({ bookingsCount: 1 });
      // A key on an unknown page is no key: 404 as without one.
      const unknown = await withKey('01a24cdd-0000-7000-8000-000000000000', body);
      expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    });

    it('a page with requirePhone says so and refuses a booking without a phone (400 naming phone)', async () => {
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id], { duration: 30, requirePhone: true });
      expect((await anonymous<PublicSchedulerDto>('GET', `${PUBLIC}/${s.id}`)).body.requirePhone).toBe(true);
      const day = nextDay();
      const without = await book<Problem>(s.id, person({ datetime: `${day}T10:00:00+00:00` }));
      expect([without.status, fieldsOf(without.body)]).toEqual([400, ['phone']]);
      const withPhone = await book(s.id, person({ datetime: `${day}T10:00:00+00:00`, phone: '+44 20 7946 0001' }));
      expect(withPhone.status).toBe(201);
    });

    it('finds the patient by email (case-insensitive) in the same tenant and mode, and never changes its record', async () => {
      const existing = await createPatient(suite.app, suite.tenant.testKey, {
        firstName: 'Known',
        lastName: 'Patient',
        email: 'known@example.com',
        patientType: 'patient',
      });
      // The same email in another tenant and in the live mode must not be used.
      const other = await createTenant(suite.app);
      await createPatient(suite.app, other.testKey, { email: 'known@example.com' });
      await createPatient(suite.app, suite.tenant.liveKey, { email: 'known@example.com' });
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id]);
      const day = nextDay();
      const res = await book(
        s.id,
        person({ firstName: 'Mallory', lastName: 'Evil', email: 'KNOWN@example.com', datetime: `${day}T09:00:00Z` }),
      );
      expect(res.status).toBe(201);
      expect(res.text).not.toMatch(/Known|Patient|known@/);
      const appointment = (await api.get<AppointmentDto>(`${SCHEDULING}/appointments/${res.body.id}`)).body;
      expect(appointment.patientId).toBe(existing.id);
      expect((await suite.api().get(`/api/v1/patients/${existing.id}`)).body).toMatchObject({
        firstName: 'Known',
        lastName: 'Patient',
        patientType: 'patient',
        updatedAt: existing.updatedAt,
      });
    });

    it('concurrent bookings with one new email create one lead', async () => {
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id]);
      const day = nextDay();
      const results = await Promise.all(
        ['09:00', '10:00', '11:00', '12:00', '13:00'].map((t) =>
          book(s.id, person({ email: 'twins@example.com', datetime: `${day}T${t}:00Z` })),
        ),
      );
      expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
      const [{ count }] = await dataSource(suite.app).query<{ count: number }[]>(
        `SELECT count(*)::int AS count FROM patients WHERE tenant_id = $1 AND lower(email) = 'twins@example.com'`,
        [suite.tenant.id],
      );
      expect(count).toBe(1);
    });

    it('refuses a taken, past or out-of-hours time with 409 slot_unavailable and three alternatives without provider ids', async () => {
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id]);
      const day = nextDay();
      expect((await book(s.id, person({ datetime: `${day}T14:00:00Z` }))).status).toBe(201);
      for (const datetime of [`${day}T14:15:00Z`, '2020-01-06T10:00:00Z', `${day}T20:00:00Z`]) {
        const res = await book<SlotUnavailable<PublicSlotDto>>(s.id, person({ datetime }));
        expect([res.status, res.body.code]).toEqual([409, 'slot_unavailable']);
        expect(res.body.alternatives).toHaveLength(3);
        for (const alternative of res.body.alternatives) expect(Object.keys(alternative).sort()).toEqual(['end', 'start']);
      }
      const taken = await book<SlotUnavailable<PublicSlotDto>>(s.id, person({ datetime: `${day}T14:00:00Z` }));
      expect(taken.body.alternatives[0]).toEqual({ start: `${day}T14:30:00.000Z`, end: `${day}T15:00:00.000Z` });
      expect(await schedulerOf(s.id)).toMatchObject({ bookingsCount: 1 });
      // A refused booking leaves no lead behind.
      const [{ count }] = await dataSource(suite.app).query<{ count: number }[]>(
        `SELECT count(*)::int AS count FROM patients WHERE tenant_id = $1 AND email = $2`,
        [suite.tenant.id, `booker${people}@example.com`],
      );
      expect(count).toBe(0);
    });

    it('books the next provider of the page when the first is taken', async () => {
      const second = await createProvider(suite.app, suite.tenant.testKey, {
        name: 'Dr. Second',
        timezone: 'UTC',
        workingHours: everyDay('09:00', '17:00'),
      });
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id, second.id]);
      const day = nextDay();
      const first = await book(s.id, person({ datetime: `${day}T15:00:00Z` }));
      const next = await book(s.id, person({ datetime: `${day}T15:00:00Z` }));
      const third = await book<SlotUnavailable<PublicSlotDto>>(s.id, person({ datetime: `${day}T15:00:00Z` }));
      expect([first.body.provider.name, next.body.provider.name]).toEqual(['Dr. Ada', 'Dr. Second']);
      expect([third.status, third.body.code]).toEqual([409, 'slot_unavailable']);
      expect(third.body.detail).toBe('No provider of this page is free at the requested time');
    });

    it('answers 400 naming each bad field, never a 500', async () => {
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id]);
      const cases: [Record<string, unknown>, string[]][] = [
        [{}, ['firstName', 'lastName', 'email', 'datetime']],
        [{ firstName: ' ', lastName: 'x', email: 'nope', datetime: '2027-02-30T10:00:00Z' }, ['firstName', 'email', 'datetime']],
        [{ firstName: 'a', lastName: 'b', email: 'a@example.com', datetime: '2027-03-01T10:00:00' }, ['datetime']],
        [{ firstName: 'a', lastName: 'b', email: 'a@example.com', datetime: '2027-03-01T10:00:00Z', phone: '12' }, ['phone']],
        [{ firstName: 'a', lastName: 'b', email: 'a@example.com', datetime: '2027-03-01T10:00:00Z', patientId: 'x' }, ['patientId']],
        [{ firstName: 'a'.repeat(101), lastName: 'b', email: 'a@example.com', datetime: 12 }, ['firstName', 'datetime']],
      ];
      for (const [body, fields] of cases) {
        const res = await book<Problem>(s.id, body);
        expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
        expect(fieldsOf(res.body).sort()).toEqual([...fields].sort());
      }
      expect(await schedulerOf(s.id)).toMatchObject({ bookingsCount: 0 });
    });

    it('refuses a phone the practice may not text (reminders text it): 400 naming phone, nothing booked', async () => {
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id]);
      const datetime = `${nextDay()}T10:00:00Z`;
      for (const phone of ['+1 900 555 0100', '+44 90 1234 5678', '+881612345678']) {
        const res = await book<Problem>(s.id, person({ phone, datetime }));
        expect([phone, res.status, res.body.errors]).toEqual([
          phone,
          400,
          [{ field: 'phone', message: expect.stringMatching(/only mobile and fixed-line numbers may be texted/) }],
        ]);
      }
      expect(await schedulerOf(s.id)).toMatchObject({ bookingsCount: 0 });
      expect((await book(s.id, person({ phone: '+44 7400 123456', datetime }))).status).toBe(201);
    });

    it('refuses a phone outside the practice settings smsCountries: 400 naming phone, nothing booked', async () => {
      // No sending number in this suite (SMS_PROVIDER=log): any country, until the practice names its own.
      const settings = suite.api();
      expect((await settings.post('/api/v1/settings/practice', { smsCountries: ['US'] })).status).toBe(200);
      try {
        const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id]);
        const datetime = `${nextDay()}T11:00:00Z`;
        const res = await book<Problem>(s.id, person({ phone: '+44 7400 123456', datetime }));
        expect([res.status, res.body.code, res.body.errors]).toEqual([
          400,
          'validation_failed',
          [{ field: 'phone', message: 'is a number of GB; the practice texts only US (practice settings smsCountries)' }],
        ]);
        expect(await schedulerOf(s.id)).toMatchObject({ bookingsCount: 0 });
        expect((await book(s.id, person({ phone: '+1 201 555 0123', datetime }))).status).toBe(201);
      } finally {
        await settings.post('/api/v1/settings/practice', { smsCountries: null });
      }
    });
  });

  describe('concurrency', () => {
    it('20 concurrent views and 10 concurrent bookings of different slots: exactly 20, 10 and 0.5', async () => {
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id]);
      const day = nextDay();
      const views = Array.from({ length: 20 }, () => anonymous('GET', `${PUBLIC}/${s.id}`));
      const bookings = Array.from({ length: 10 }, (_, i) =>
        book(s.id, person({ datetime: `${day}T${String(9 + Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}:00Z` })),
      );
      const results = await Promise.all([...views, ...bookings]);
      expect(results.slice(0, 20).map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(results.slice(20).map((r) => r.status)).toEqual(Array(10).fill(201));
      expect(await schedulerOf(s.id)).toMatchObject({ viewsCount: 20, bookingsCount: 10, conversionRate: 0.5 });
    });

    it('20 concurrent public bookings of one slot on two API instances: exactly one 201, one appointment, one lead, one count', async () => {
      const secondApp = await startApp({ ...UNLIMITED, WORKERS: 'off' });
      try {
        const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id]);
        const datetime = `${nextDay()}T13:00:00Z`;
        const bodies = Array.from({ length: 20 }, () => person({ datetime }));
        const results = await Promise.all(
          bodies.map((body, i) =>
            call<Problem>(i % 2 ? secondApp : suite.app, 'POST', `${PUBLIC}/${s.id}/book`, { body, remoteAddress: '198.51.100.8' }),
          ),
        );
        const statuses = results.map((r) => r.status);
        expect(statuses.filter((x) => x === 201)).toHaveLength(1);
        expect(results.filter((r) => r.status === 409).map((r) => r.body.code)).toEqual(Array(19).fill('slot_unavailable'));
        const [{ appointments }] = await dataSource(suite.app).query<{ appointments: number }[]>(
          `SELECT count(*)::int AS appointments FROM appointments WHERE provider_id = $1 AND starts_at = $2 AND status IN ('scheduled', 'confirmed')`,
          [provider.id, datetime],
        );
        expect(appointments).toBe(1);
        const [{ leads }] = await dataSource(suite.app).query<{ leads: number }[]>(
          `SELECT count(*)::int AS leads FROM patients WHERE tenant_id = $1 AND email = ANY($2)`,
          [suite.tenant.id, bodies.map((b) => b.email)],
        );
        expect(leads).toBe(1);
        expect(await schedulerOf(s.id)).toMatchObject({ bookingsCount: 1 });
      } finally {
        await secondApp.close();
      }
    });
  });

  describe('isolation', () => {
    it("books in the scheduler's tenant and mode only; other keys cannot see the page, the lead or the appointment", async () => {
      const liveProvider = await createProvider(suite.app, suite.tenant.liveKey, {
        timezone: 'UTC',
        workingHours: everyDay('09:00', '17:00'),
      });
      const liveScheduler = await createScheduler(suite.app, suite.tenant.liveKey, [liveProvider.id]);
      const res = await book(liveScheduler.id, person({ email: 'live-only@example.com', datetime: `${nextDay()}T10:00:00Z` }));
      expect(res.status).toBe(201);
      const live = suite.api(suite.tenant.liveKey);
      expect((await live.get<AppointmentDto>(`${SCHEDULING}/appointments/${res.body.id}`)).body.patient).toMatchObject({
        email: 'live-only@example.com',
        patientType: 'lead',
      });
      expect((await live.get<SchedulerDto>(`${SCHEDULERS}/${liveScheduler.id}`)).body.bookingsCount).toBe(1);
      const other = await createTenant(suite.app);
      for (const key of [suite.tenant.testKey, other.testKey, other.liveKey]) {
        const them = suite.api(key);
        expect((await them.get(`${SCHEDULING}/appointments/${res.body.id}`)).status).toBe(404);
        expect((await them.get(`${SCHEDULERS}/${liveScheduler.id}`)).status).toBe(404);
        expect((await them.get<PatientListDto>('/api/v1/patients?email=live-only@example.com')).body.patients).toEqual([]);
      }
    });
  });

  describe('events and audit', () => {
    it('records appointment.booked and patient.created in the booking, an event with previous and source on each change', async () => {
      const t = await createTenant(suite.app);
      const p = await createProvider(suite.app, t.testKey, { timezone: 'UTC', workingHours: everyDay('09:00', '17:00') });
      const s = await createScheduler(suite.app, t.testKey, [p.id]);
      const them = suite.api(t.testKey);
      const day = nextDay();
      const booked = await book(s.id, person({ email: 'events@example.com', datetime: `${day}T10:00:00Z` }));
      expect((await book(s.id, person({ datetime: `${day}T10:00:00Z` }))).status).toBe(409);
      const appointment = (await them.get<AppointmentDto>(`${SCHEDULING}/appointments/${booked.body.id}`)).body;

      const events = async <D = unknown>(type: string) => (await them.get<EventPageOf<D>>(`/api/v1/events?type=${type}`)).body.events;
      const bookedEvents = await events('appointment.booked');
      expect(bookedEvents).toHaveLength(1);
      expect(bookedEvents[0].data).toEqual(appointment);
      const created = await events('patient.created');
      expect(created.map((e) => e.data)).toEqual([appointment.patient]);

      expect((await them.patch(`${SCHEDULING}/appointments/${booked.body.id}`, {})).status).toBe(200);
      expect(await events('appointment.updated')).toEqual([]);
      const confirmed = await them.patch<AppointmentDto>(`${SCHEDULING}/appointments/${booked.body.id}`, { status: 'confirmed' });
      const moved = await them.patch<AppointmentDto>(`${SCHEDULING}/appointments/${booked.body.id}`, { datetime: `${day}T11:00:00Z` });
      expect((await them.patch(`${SCHEDULING}/appointments/${booked.body.id}`, { status: 'scheduled' })).status).toBe(409);
      expect((await events('appointment.confirmed')).map((e) => e.data)).toEqual([
        { appointment: confirmed.body, previous: { status: 'scheduled', confirmedAt: null }, source: 'api' },
      ]);
      expect((await events('appointment.rescheduled')).map((e) => e.data)).toEqual([
        {
          appointment: moved.body,
          previous: { datetime: `${day}T10:00:00.000Z`, end: `${day}T10:30:00.000Z` },
          source: 'api',
        },
      ]);
      const noted = await them.patch<AppointmentDto>(`${SCHEDULING}/appointments/${booked.body.id}`, { notes: 'Bring the referral' });
      expect((await events('appointment.updated')).map((e) => e.data)).toEqual([noted.body]);

      // A key-booked appointment emits appointment.booked too.
      const patient = await createPatient(suite.app, t.testKey);
      const keyed = await them.post<AppointmentDto>(`${SCHEDULING}/book`, {
        patientId: patient.id,
        providerId: p.id,
        datetime: `${day}T15:00:00Z`,
      });
      expect((await events<AppointmentDto>('appointment.booked')).map((e) => e.data.id)).toEqual([keyed.body.id, booked.body.id]);
      expect(await suite.api().get('/api/v1/events?type=appointment.booked')).toMatchObject({ status: 200 });
      expect(
        (await suite.api().get<EventPageOf<AppointmentDto>>('/api/v1/events?type=appointment.booked')).body.events.map((e) => e.data.id),
      ).not.toContain(booked.body.id);
    });

    it('audits the public booking (no key) and reads and writes of appointments', async () => {
      const t = await createTenant(suite.app);
      const p = await createProvider(suite.app, t.testKey, { timezone: 'UTC', workingHours: everyDay('09:00', '17:00') });
      const s = await createScheduler(suite.app, t.testKey, [p.id]);
      const them = suite.api(t.testKey);
      const day = nextDay();
      const booked = await book(s.id, person({ datetime: `${day}T10:00:00Z` }));
      const id = booked.body.id;
      await them.get(`${SCHEDULING}/appointments/${id}`);
      await them.get(`${SCHEDULING}/appointments/${id}.ics`);
      await them.patch(`${SCHEDULING}/appointments/${id}`, { status: 'confirmed' });
      await them.get(`${SCHEDULING}/appointments`);
      const refused = await book(s.id, person({ datetime: `${day}T10:00:00Z` }));
      expect(refused.status).toBe(409);

      const entries = (query: string, expected: number) => auditEntries(suite.app, t.testKey, query, expected);
      const ofAppointment = await entries(`resourceId=${id}`, 4);
      expect(ofAppointment.map((e) => [e.action, e.resourceType, e.status, e.apiKeyId === null])).toEqual([
        ['appointment.update', 'appointment', 200, false],
        ['appointment.calendar', 'appointment', 200, false],
        ['appointment.read', 'appointment', 200, false],
        ['appointment.public_book', 'appointment', 201, true],
      ]);
      expect(ofAppointment[3].ip).toBe('198.51.100.7');
      expect((await entries('action=appointment.list', 1))[0]).toMatchObject({ status: 200, resourceId: null });
      const publicBookings = await entries('action=appointment.public_book', 2);
      expect(publicBookings.map((e) => [e.status, e.resourceId, e.apiKeyId])).toEqual([
        [409, null, null],
        [201, id, null],
      ]);
      // Nothing of it reached another tenant's log.
      expect((await api.get<AuditLogDto>(`/api/v1/settings/audit-log?resourceId=${id}`)).body.entries).toEqual([]);
    });
  });

  it('limits the public routes per client IP (429 with Retry-After), counting neither the refused view nor booking', async () => {
    const limited = await startApp({
      ...NO_RATE_LIMITS,
      WORKERS: 'off',
      RATE_LIMIT_IP_PER_SECOND: '3',
      RATE_LIMIT_IP_PER_HOUR: '1000',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}:pub`,
    });
    try {
      const s = await createScheduler(suite.app, suite.tenant.testKey, [provider.id]);
      const from = (ip: string, method: 'GET' | 'POST', url: string, body?: unknown) =>
        call<Problem>(limited, method, url, { remoteAddress: ip, body });
      const day = nextDay();
      const statuses = [];
      statuses.push((await from('203.0.113.9', 'GET', `${PUBLIC}/${s.id}`)).status);
      statuses.push((await from('203.0.113.9', 'GET', `${PUBLIC}/${s.id}/availability?startDate=${day}&endDate=${day}`)).status);
      statuses.push((await from('203.0.113.9', 'POST', `${PUBLIC}/${s.id}/book`, person({ datetime: `${day}T10:00:00Z` }))).status);
      expect(statuses).toEqual([200, 200, 201]);
      const view = await from('203.0.113.9', 'GET', `${PUBLIC}/${s.id}`);
      const booking = await from('203.0.113.9', 'POST', `${PUBLIC}/${s.id}/book`, person({ datetime: `${day}T11:00:00Z` }));
      for (const res of [view, booking]) {
        expect([res.status, res.body.code]).toEqual([429, 'rate_limited']);
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
      // Another client is not affected, and an API key does not lift a public route's per-IP limit.
      expect((await from('203.0.113.10', 'GET', `${PUBLIC}/${s.id}`)).status).toBe(200);
      const withKey = await call(limited, 'GET', `${PUBLIC}/${s.id}`, { remoteAddress: '203.0.113.9', key: suite.tenant.testKey });
      expect(withKey.status).toBe(429);
      expect(await schedulerOf(s.id)).toMatchObject({ viewsCount: 2, bookingsCount: 1 });
    } finally {
      await limited.close();
    }
  });
});
