import { call, dataSource, type Problem } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { dayByDay } from '../helpers/dates';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { createProvider, createScheduler, fieldsOf, SCHEDULING, type SlotUnavailable, weekdays } from '../helpers/scheduling';
import type {
  PublicAvailabilityDto,
  PublicBookingResultDto,
  PublicHoldResultDto,
} from '../../src/modules/booking-pages/dto/public-scheduler.dto';
import type { PatientDto } from '../../src/modules/patients';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AvailabilityDto } from '../../src/modules/scheduling/availability/dto/availability.dto';
import type { HoldDto } from '../../src/modules/scheduling/holds/dto/hold.dto';
import type { ProviderDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type { TestClockAdvancedDto } from '../../src/modules/test-clocks/dto/test-clock.dto';
import { clock } from '../../src/common/time/clock';

const HOLDS = `${SCHEDULING}/holds`;
const PUBLIC = '/api/v1/public/schedulers';
const CLOCK = '/api/v1/test-helpers/clock';
/** Per-IP limits off too: the public tests send bursts from one address. */
const UNLIMITED = { ...NO_RATE_LIMITS, RATE_LIMIT_IP_PER_SECOND: '0', RATE_LIMIT_IP_PER_HOUR: '0' };

/**
 * Holds through the real app and its workers: a held time is booked for everyone else (availability, bookings,
 * other holds), races of holds and bookings have one winner (the claims' exclusion constraint), and a hold
 * ends booked, released or expired by the tenant's clock, each freeing or keeping the time as it should.
 */
describe('Holds', () => {
  const suite = useApp(UNLIMITED);
  let provider: ProviderDto;
  let patient: PatientDto;
  // Every test holds on its own weekday from a month ahead; the provider works 09:00–17:00 UTC.
  const nextDay = dayByDay({ weekdaysOnly: true });

  const api = () => suite.api();
  const hold = <T = HoldDto>(body: Record<string, unknown>) => api().post<T>(HOLDS, { providerId: provider.id, duration: 30, ...body });
  const book = <T = AppointmentDto>(body: Record<string, unknown>) =>
    api().post<T>(`${SCHEDULING}/book`, { patientId: patient.id, ...body });
  const getHold = async (id: string) => (await api().get<HoldDto>(`${HOLDS}/${id}`)).body;
  const slotsOf = async (day: string) =>
    (
      await api().get<AvailabilityDto>(`${SCHEDULING}/availability?providerId=${provider.id}&startDate=${day}&endDate=${day}`)
    ).body.slots.map((s) => s.start);
  const anonymous = <T>(method: 'GET' | 'POST', url: string, body?: unknown) =>
    call<T>(suite.app, method, url, { body, remoteAddress: '198.51.100.9' });

  beforeAll(async () => {
    provider = await createProvider(suite.app, suite.tenant.testKey, {
      name: 'Dr. Ada',
      timezone: 'UTC',
      workingHours: weekdays('09:00', '17:00'),
    });
    patient = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Pat', lastName: 'Held', email: 'held@example.com' });
  });

  it('holds a slot: 201 with Location, active; the time leaves availability and refuses bookings and other holds', async () => {
    const day = nextDay();
    const datetime = `${day}T10:00:00.000Z`;
    const res = await hold({ datetime, ttlSeconds: 600 });
    expect([res.status, res.text]).toEqual([201, expect.any(String)]);
    expect(res.headers.location).toBe(`${HOLDS}/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.any(String),
      providerId: provider.id,
      datetime,
      end: `${day}T10:30:00.000Z`,
      appointmentTypeId: null,
      expiresAt: expect.any(String),
      status: 'active',
      appointmentId: null,
    });
    expect(await getHold(res.body.id)).toEqual(res.body);

    const slots = await slotsOf(day);
    expect(slots).not.toContain(datetime);
    expect(slots).not.toContain(`${day}T10:15:00.000Z`);
    expect(slots).toContain(`${day}T10:30:00.000Z`);

    const booking = await book<SlotUnavailable>({ providerId: provider.id, datetime });
    expect([booking.status, booking.body.code]).toEqual([409, 'slot_unavailable']);
    expect(booking.body.alternatives.map((a) => a.start)).not.toContain(datetime);
    const overlapping = await hold<SlotUnavailable>({ datetime: `${day}T10:15:00.000Z` });
    expect([overlapping.status, overlapping.body.code]).toEqual([409, 'slot_unavailable']);
    expect(overlapping.body.alternatives.length).toBeGreaterThan(0);
  });

  it('20 concurrent holds of one slot: exactly one 201, nineteen slot_unavailable', async () => {
    const datetime = `${nextDay()}T13:00:00.000Z`;
    const results = await Promise.all(Array.from({ length: 20 }, () => hold<Problem>({ datetime })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 201).map((r) => [r.status, r.body.code])).toEqual(
      Array.from({ length: 19 }, () => [409, 'slot_unavailable']),
    );
    const [{ count }] = await dataSource(suite.app).query<{ count: number }[]>(
      `SELECT count(*)::int AS count FROM holds WHERE provider_id = $1 AND starts_at = $2 AND status = 'active'`,
      [provider.id, datetime],
    );
    expect(count).toBe(1);
  });

  it('holds and bookings racing for one slot: exactly one wins', async () => {
    const datetime = `${nextDay()}T14:00:00.000Z`;
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => (i % 2 ? hold<Problem>({ datetime }) : book<Problem>({ providerId: provider.id, datetime }))),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 201).every((r) => r.status === 409 && r.body.code === 'slot_unavailable')).toBe(true);
    // The database's own rule, whatever the application checked: a hold written over that time is refused.
    const overlap = dataSource(suite.app).query(
      `INSERT INTO holds (id, tenant_id, mode, provider_id, starts_at, ends_at, duration, expires_at, status, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'test', $2, $3::timestamptz + interval '10 minutes', $3::timestamptz + interval '40 minutes', 30, now() + interval '5 minutes', 'active', now(), now())`,
      [suite.tenant.id, provider.id, datetime],
    );
    await expect(overlap).rejects.toMatchObject({ driverError: { code: '23P01', constraint: 'EX_PROVIDER_TIME_CLAIMS' } });
  });

  it('DELETE releases it: 204, status released, the time is free again; a second DELETE changes nothing', async () => {
    const day = nextDay();
    const datetime = `${day}T11:00:00.000Z`;
    const held = (await hold({ datetime })).body;
    expect((await api().delete(`${HOLDS}/${held.id}`)).status).toBe(204);
    expect(await getHold(held.id)).toMatchObject({ status: 'released', appointmentId: null });
    expect(await slotsOf(day)).toContain(datetime);
    expect((await api().delete(`${HOLDS}/${held.id}`)).status).toBe(204);
    expect((await book({ providerId: provider.id, datetime })).status).toBe(201);
    const again = await book<Problem>({ holdId: held.id });
    expect([again.status, again.body.code]).toEqual([410, 'hold_expired']);
  });

  it('books a hold: 201 at its time, the hold consumed naming the appointment; booking it again is 409 hold_consumed', async () => {
    const datetime = `${nextDay()}T15:00:00.000Z`;
    const held = (await hold({ datetime, duration: 45 })).body;
    const res = await book({ holdId: held.id, notes: 'Held first' });
    expect([res.status, res.text]).toEqual([201, expect.any(String)]);
    expect(res.body).toMatchObject({ providerId: provider.id, datetime, duration: 45, status: 'scheduled', notes: 'Held first' });
    expect(await getHold(held.id)).toMatchObject({ status: 'consumed', appointmentId: res.body.id });

    const again = await book<Problem & { appointmentId: string }>({ holdId: held.id });
    expect([again.status, again.body.code, again.body.appointmentId]).toEqual([409, 'hold_consumed', res.body.id]);
    const release = await api().delete<Problem>(`${HOLDS}/${held.id}`);
    expect([release.status, release.body.code]).toEqual([409, 'hold_consumed']);
  });

  it('refuses bad bodies with 400 validation_failed naming the field', async () => {
    const datetime = `${nextDay()}T09:00:00.000Z`;
    for (const [body, fields] of [
      [{ datetime, ttlSeconds: 29 }, ['ttlSeconds']],
      [{ datetime, ttlSeconds: 1801 }, ['ttlSeconds']],
      [{ datetime, appointmentTypeId: provider.id }, ['duration', 'appointmentTypeId']],
      [{ datetime, duration: undefined }, ['duration']],
      [{ datetime: 'tomorrow' }, ['datetime']],
    ] as const) {
      const res = await hold<Problem>(body);
      expect([body, res.status, res.body.code, fieldsOf(res.body)]).toEqual([body, 400, 'validation_failed', fields]);
    }
    const held = (await hold({ datetime })).body;
    for (const [body, fields] of [
      [{ holdId: held.id, providerId: patient.id }, ['providerId']],
      [{ holdId: held.id, datetime: `${datetime.slice(0, 10)}T09:30:00.000Z` }, ['datetime']],
      [{ holdId: held.id, duration: 30 }, ['duration']],
      [{ holdId: provider.id }, ['holdId']],
      [{ holdId: 'nope' }, ['holdId']],
    ] as const) {
      const res = await book<Problem>(body);
      expect([body, res.status, res.body.code, fieldsOf(res.body)]).toEqual([body, 400, 'validation_failed', fields]);
    }
    expect(await getHold(held.id)).toMatchObject({ status: 'active' });
    // The documented slot form with the hold's own provider and time books it too.
    const res = await book({ holdId: held.id, providerId: provider.id, datetime });
    expect([res.status, res.body.datetime]).toEqual([201, datetime]);
  });

  it('a hold past its expiry frees its time at once, before its job runs: availability, GET and bookings', async () => {
    const day = nextDay();
    const datetime = `${day}T12:00:00.000Z`;
    const held = (await hold({ datetime })).body;
    // As if its time had come with its job not yet run.
    await dataSource(suite.app).query(`UPDATE holds SET expires_at = now() - interval '1 second' WHERE id = $1`, [held.id]);
    expect(await getHold(held.id)).toMatchObject({ status: 'expired' });
    expect(await slotsOf(day)).toContain(datetime);
    expect((await book({ providerId: provider.id, datetime })).status).toBe(201);
    const [{ status }] = await dataSource(suite.app).query<{ status: string }[]>(`SELECT status FROM holds WHERE id = $1`, [held.id]);
    expect(status).toBe('expired');
  });

  it("expires on the tenant's test clock: an advance past expiresAt runs its job and frees the time; booking it is 410", async () => {
    const day = nextDay();
    const datetime = `${day}T16:00:00.000Z`;
    const held = (await hold({ datetime, ttlSeconds: 60 })).body;
    try {
      const advanced = await api().post<TestClockAdvancedDto>(`${CLOCK}/advance`, {
        to: new Date(Date.parse(held.expiresAt) + 1_000).toISOString(),
      });
      expect([advanced.status, advanced.text]).toEqual([200, expect.any(String)]);
      expect(advanced.body.ran.holdsExpired).toBeGreaterThanOrEqual(1);
      const [{ status }] = await dataSource(suite.app).query<{ status: string }[]>(`SELECT status FROM holds WHERE id = $1`, [held.id]);
      expect(status).toBe('expired');
      expect(await getHold(held.id)).toMatchObject({ status: 'expired' });
      expect(await slotsOf(day)).toContain(datetime);
      const late = await book<Problem>({ holdId: held.id });
      expect([late.status, late.body.code]).toEqual([410, 'hold_expired']);
      expect((await book({ providerId: provider.id, datetime })).status).toBe(201);
    } finally {
      expect((await api().post(`${CLOCK}/reset`)).status).toBe(200);
    }
  });

  describe('on a booking page', () => {
    it('holds a time of the page (201 { holdId, expiresAt }), hides it from the page, and books it with holdId', async () => {
      const scheduler = await createScheduler(suite.app, suite.tenant.testKey, [provider.id], { duration: 30 });
      const day = nextDay();
      const datetime = `${day}T10:00:00.000Z`;
      const res = await anonymous<PublicHoldResultDto>('POST', `${PUBLIC}/${scheduler.id}/holds`, { datetime });
      expect([res.status, res.text]).toEqual([201, expect.any(String)]);
      expect(res.body).toEqual({ holdId: expect.any(String), expiresAt: expect.any(String) });
      const ttl = Date.parse(res.body.expiresAt) - clock.nowMs();
      expect(ttl).toBeGreaterThan(280_000);
      expect(ttl).toBeLessThanOrEqual(300_000);
      const slots = await anonymous<PublicAvailabilityDto>('GET', `${PUBLIC}/${scheduler.id}/availability?startDate=${day}&endDate=${day}`);
      expect(slots.body.slots.map((s) => s.start)).not.toContain(datetime);
      const taken = await anonymous<Problem>('POST', `${PUBLIC}/${scheduler.id}/holds`, { datetime });
      expect([taken.status, taken.body.code]).toEqual([409, 'slot_unavailable']);

      const person = { firstName: 'Grace', lastName: 'Holder', email: 'grace.holder@example.com' };
      const wrong = await anonymous<Problem>('POST', `${PUBLIC}/${scheduler.id}/book`, {
        ...person,
        holdId: res.body.holdId,
        datetime: `${day}T10:30:00.000Z`,
      });
      expect([wrong.status, fieldsOf(wrong.body)]).toEqual([400, ['datetime']]);
      const booked = await anonymous<PublicBookingResultDto>('POST', `${PUBLIC}/${scheduler.id}/book`, {
        ...person,
        holdId: res.body.holdId,
      });
      expect([booked.status, booked.text]).toEqual([201, expect.any(String)]);
      expect(booked.body).toMatchObject({ datetime, schedulerId: scheduler.id, provider: { name: 'Dr. Ada' } });
      expect(await getHold(res.body.holdId)).toMatchObject({ status: 'consumed', appointmentId: booked.body.id });
    });

    it("refuses another page's hold and a hold taken with a key (400 naming holdId)", async () => {
      const [one, other] = await Promise.all([
        createScheduler(suite.app, suite.tenant.testKey, [provider.id]),
        createScheduler(suite.app, suite.tenant.testKey, [provider.id]),
      ]);
      const day = nextDay();
      const pageHold = await anonymous<PublicHoldResultDto>('POST', `${PUBLIC}/${one.id}/holds`, { datetime: `${day}T09:00:00.000Z` });
      const keyedHold = (await hold({ datetime: `${day}T11:00:00.000Z` })).body;
      const person = { firstName: 'Grace', lastName: 'Elsewhere', email: 'grace.elsewhere@example.com' };
      for (const holdId of [pageHold.body.holdId, keyedHold.id]) {
        const res = await anonymous<Problem>('POST', `${PUBLIC}/${other.id}/book`, { ...person, holdId });
        expect([res.status, fieldsOf(res.body)]).toEqual([400, ['holdId']]);
      }
      const unknownProvider = await anonymous<Problem>('POST', `${PUBLIC}/${one.id}/holds`, {
        datetime: `${day}T12:00:00.000Z`,
        providerId: patient.id,
      });
      expect([unknownProvider.status, fieldsOf(unknownProvider.body)]).toEqual([400, ['providerId']]);
    });
  });
});
