import { DateTime } from 'luxon';
import { client, createKey, createTenant, type Problem } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { NO_RATE_LIMITS } from '../helpers/patients';
import { createProvider, everyDay, fieldsOf, SCHEDULING, weekdays } from '../helpers/scheduling';
import { nextOffsetChange, nextWeekday, utcDate } from '../helpers/dates';
import { clock } from '../../src/common/time/clock';
import type { AvailabilityDto } from '../../src/modules/scheduling/availability/dto/availability.dto';
import type { ProviderDto, ProviderListDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type { TimeOffDto, TimeOffListDto } from '../../src/modules/scheduling/providers/dto/time-off.dto';

const query = (params: Record<string, string | number>): string =>
  new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
const local = (iso: string, zone: string): string => DateTime.fromISO(iso, { zone }).toFormat('yyyy-MM-dd HH:mm');

describe('Scheduling: providers, time off and availability', () => {
  const suite = useApp(NO_RATE_LIMITS);
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    api = suite.api();
  });

  const availability = <T = AvailabilityDto>(params: Record<string, string | number>, key = suite.tenant.testKey) =>
    suite.api(key).get<T>(`${SCHEDULING}/availability?${query(params)}`);

  describe('providers', () => {
    it('creates a provider with several intervals a day, answers 201 with Location, and reads it back', async () => {
      const res = await api.post<ProviderDto>(`${SCHEDULING}/providers`, {
        name: ' Dr. Grace Hopper ',
        email: 'grace@clinic.example',
        timezone: 'Asia/Kolkata',
        workingHours: [
          { weekday: 1, start: '13:00', end: '17:00' },
          { weekday: 1, start: '09:00', end: '12:00' },
        ],
      });
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`/api/v1/scheduling/providers/${res.body.id}`);
      expect(res.body).toEqual({
        id: expect.any(String),
        name: 'Dr. Grace Hopper',
        email: 'grace@clinic.example',
        timezone: 'Asia/Kolkata',
        workingHours: [
          { weekday: 1, start: '09:00', end: '12:00' },
          { weekday: 1, start: '13:00', end: '17:00' },
        ],
        isActive: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const got = await api.get(`${SCHEDULING}/providers/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
    });

    it('updates only the fields sent (PATCH), and lists newest first with a cursor and an isActive filter', async () => {
      const a = await createProvider(suite.app, suite.tenant.testKey, { name: 'List A' });
      const b = await createProvider(suite.app, suite.tenant.testKey, { name: 'List B' });
      const patched = await api.patch(`${SCHEDULING}/providers/${a.id}`, { isActive: false, timezone: 'Europe/London' });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ name: 'List A', isActive: false, timezone: 'Europe/London', workingHours: a.workingHours });

      const page1 = await api.get<ProviderListDto>(`${SCHEDULING}/providers?limit=1`);
      expect(page1.status).toBe(200);
      expect(page1.body.providers.map((p) => p.id)).toEqual([b.id]);
      const page2 = await api.get<ProviderListDto>(`${SCHEDULING}/providers?limit=1&cursor=${page1.body.nextCursor}`);
      expect(page2.body.providers.map((p) => p.id)).toEqual([a.id]);

      const inactive = await api.get<ProviderListDto>(`${SCHEDULING}/providers?isActive=false`);
      expect(inactive.body.providers.map((p) => p.id)).toContain(a.id);
      expect(inactive.body.providers.map((p) => p.id)).not.toContain(b.id);
    });

    it.each([
      ['an unknown zone', { timezone: 'Mars/Olympus_Mons' }, ['timezone']],
      ['a zone in the wrong case', { timezone: 'america/new_york' }, ['timezone']],
      ['a fixed offset', { timezone: '+05:00' }, ['timezone']],
      ['no name', { name: '' }, ['name']],
      ['a bad email', { email: 'nope' }, ['email']],
      ['weekday 8', { workingHours: [{ weekday: 8, start: '09:00', end: '17:00' }] }, ['workingHours.0.weekday']],
      ['25:00', { workingHours: [{ weekday: 1, start: '25:00', end: '26:00' }] }, ['workingHours.0.start', 'workingHours.0.end']],
      ['an end before its start', { workingHours: [{ weekday: 1, start: '17:00', end: '09:00' }] }, ['workingHours.0.end']],
      [
        'overlapping intervals',
        {
          workingHours: [
            { weekday: 2, start: '09:00', end: '12:00' },
            { weekday: 2, start: '11:00', end: '13:00' },
          ],
        },
        ['workingHours.1.start'],
      ],
      ['an unknown property', { colour: 'blue' }, ['colour']],
    ])('refuses %s with a 400 naming the field', async (_label, override, fields) => {
      const res = await api.post<Problem>(`${SCHEDULING}/providers`, { name: 'X', timezone: 'UTC', workingHours: weekdays(), ...override });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(fieldsOf(res.body).sort()).toEqual([...fields].sort());
    });

    it('validates PATCH bodies the same way', async () => {
      const p = await createProvider(suite.app, suite.tenant.testKey);
      const res = await api.patch<Problem>(`${SCHEDULING}/providers/${p.id}`, { timezone: 'Nowhere/Land', isActive: 'yes' });
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body).sort()).toEqual(['isActive', 'timezone']);
    });

    it('refuses null for a PATCH member that cannot be cleared, naming it; null clears the email', async () => {
      const p = await createProvider(suite.app, suite.tenant.testKey);
      for (const field of ['name', 'timezone', 'workingHours', 'isActive']) {
        const res = await api.patch<Problem>(`${SCHEDULING}/providers/${p.id}`, { [field]: null });
        expect([res.status, fieldsOf(res.body)]).toEqual([400, [field]]);
      }
      await api.patch(`${SCHEDULING}/providers/${p.id}`, { email: 'grace@example.com' });
      const cleared = await api.patch<ProviderDto>(`${SCHEDULING}/providers/${p.id}`, { email: null });
      expect([cleared.status, cleared.body.email, cleared.body.name]).toEqual([200, null, p.name]);
    });

    it('answers 404 for unknown and malformed ids', async () => {
      expect((await api.get(`${SCHEDULING}/providers/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
      expect((await api.get(`${SCHEDULING}/providers/not-an-id`)).status).toBe(404);
      expect((await api.patch(`${SCHEDULING}/providers/00000000-0000-4000-8000-000000000000`, { name: 'x' })).status).toBe(404);
    });
  });

  describe('time off', () => {
    it('adds, lists by start and removes time off; availability excludes it while it exists', async () => {
      const [day1, day2] = [utcDate(30), utcDate(31)];
      const p = await createProvider(suite.app, suite.tenant.testKey, { timezone: 'UTC', workingHours: everyDay('09:00', '17:00') });
      const later = await api.post<TimeOffDto>(`${SCHEDULING}/providers/${p.id}/time-off`, {
        start: `${day2}T09:00:00Z`,
        end: `${day2}T17:00:00Z`,
      });
      const res = await api.post<TimeOffDto>(`${SCHEDULING}/providers/${p.id}/time-off`, {
        start: `${day1}T12:00:00Z`,
        end: `${day1}T14:00:00+01:00`,
        reason: 'Training',
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        providerId: p.id,
        start: `${day1}T12:00:00.000Z`,
        end: `${day1}T13:00:00.000Z`,
        reason: 'Training',
      });

      const list = await api.get<TimeOffListDto>(`${SCHEDULING}/providers/${p.id}/time-off`);
      expect(list.status).toBe(200);
      expect(list.body.timeOff.map((t) => t.id)).toEqual([res.body.id, later.body.id]);

      const slots = await availability({ providerId: p.id, startDate: day1, endDate: day2, duration: 30 });
      expect(slots.status).toBe(200);
      const starts = slots.body.slots.map((s) => s.start);
      expect(starts).toContain(`${day1}T11:30:00.000Z`);
      expect(starts).not.toContain(`${day1}T11:45:00.000Z`);
      expect(starts).not.toContain(`${day1}T12:30:00.000Z`);
      expect(starts).toContain(`${day1}T13:00:00.000Z`);
      expect(starts.filter((s) => s.startsWith(day2))).toEqual([]);

      expect((await api.delete(`${SCHEDULING}/providers/${p.id}/time-off/${res.body.id}`)).status).toBe(204);
      expect((await api.delete(`${SCHEDULING}/providers/${p.id}/time-off/${res.body.id}`)).status).toBe(404);
      const after = await availability({ providerId: p.id, startDate: day1, endDate: day1 });
      expect(after.body.slots.map((s) => s.start)).toContain(`${day1}T12:30:00.000Z`);
    });

    it('refuses an end before the start, impossible dates and times without an offset', async () => {
      const p = await createProvider(suite.app, suite.tenant.testKey);
      const url = `${SCHEDULING}/providers/${p.id}/time-off`;
      const day = utcDate(30);
      const reversed = await api.post<Problem>(url, { start: `${day}T10:00:00Z`, end: `${day}T09:00:00Z` });
      expect(reversed.status).toBe(400);
      expect(fieldsOf(reversed.body)).toEqual(['end']);
      // February 30th and hour 25 are impossible in any year.
      const impossible = await api.post<Problem>(url, { start: `${day.slice(0, 4)}-02-30T10:00:00Z`, end: `${day}T25:00:00Z` });
      expect(impossible.status).toBe(400);
      expect(fieldsOf(impossible.body).sort()).toEqual(['end', 'start']);
      const floating = await api.post<Problem>(url, { start: `${day}T10:00:00`, end: `${day}T11:00:00Z` });
      expect(fieldsOf(floating.body)).toEqual(['start']);
    });

    it('answers 404 for time off of an unknown provider', async () => {
      const res = await api.post(`${SCHEDULING}/providers/00000000-0000-4000-8000-000000000000/time-off`, {
        start: `${utcDate(30)}T10:00:00Z`,
        end: `${utcDate(30)}T11:00:00Z`,
      });
      expect(res.status).toBe(404);
    });
  });

  describe('availability', () => {
    it('America/New_York across the March change: 09:00 local is 14:00Z before and 13:00Z after', async () => {
      const change = nextOffsetChange('America/New_York', 'forward'); // a Sunday in March
      const [fri, mon] = [change.minus({ days: 2 }).toISODate()!, change.plus({ days: 1 }).toISODate()!];
      const p = await createProvider(suite.app, suite.tenant.testKey, {
        timezone: 'America/New_York',
        workingHours: weekdays('09:00', '17:00'),
      });
      const res = await availability({ providerId: p.id, startDate: fri, endDate: mon, duration: 60 });
      expect(res.status).toBe(200);
      const slots = res.body.slots;
      expect(slots.every((s) => s.providerId === p.id)).toBe(true);
      const friday = slots.filter((s) => local(s.start, 'America/New_York').startsWith(fri));
      const monday = slots.filter((s) => local(s.start, 'America/New_York').startsWith(mon));
      expect(friday[0].start).toBe(`${fri}T14:00:00.000Z`);
      expect(monday[0].start).toBe(`${mon}T13:00:00.000Z`);
      expect(friday.at(-1)!.end).toBe(`${fri}T22:00:00.000Z`);
      expect(monday.at(-1)!.end).toBe(`${mon}T21:00:00.000Z`);
      expect(slots).toHaveLength(friday.length + monday.length); // nothing at the weekend
    });

    it('America/New_York on the change nights: no slot in the skipped hour, none doubled in the repeated one', async () => {
      const p = await createProvider(suite.app, suite.tenant.testKey, { workingHours: [{ weekday: 7, start: '00:00', end: '06:00' }] });
      const spring = nextOffsetChange('America/New_York', 'forward').toISODate()!;
      const autumn = nextOffsetChange('America/New_York', 'back').toISODate()!;
      const march = await availability({ providerId: p.id, startDate: spring, endDate: spring });
      const marchWalls = march.body.slots.map((s) => local(s.start, 'America/New_York').slice(11));
      expect(marchWalls.filter((w) => w.startsWith('02:'))).toEqual([]);
      expect(new Set(marchWalls).size).toBe(marchWalls.length);
      expect(marchWalls).toHaveLength(19);

      const november = await availability({ providerId: p.id, startDate: autumn, endDate: autumn });
      const novemberWalls = november.body.slots.map((s) => local(s.start, 'America/New_York').slice(11));
      expect(new Set(novemberWalls).size).toBe(novemberWalls.length);
      expect(novemberWalls.filter((w) => w === '01:30')).toHaveLength(1);
      expect(november.body.slots[novemberWalls.indexOf('01:30')].start).toBe(`${autumn}T05:30:00.000Z`);
      expect(november.body.slots.at(-1)!.end).toBe(`${autumn}T11:00:00.000Z`);
    });

    it('America/New_York across the November change: 09:00 local is 13:00Z before and 14:00Z after', async () => {
      const change = nextOffsetChange('America/New_York', 'back'); // a Sunday in November
      const [fri, mon] = [change.minus({ days: 2 }).toISODate()!, change.plus({ days: 1 }).toISODate()!];
      const p = await createProvider(suite.app, suite.tenant.testKey);
      const res = await availability({ providerId: p.id, startDate: fri, endDate: mon });
      const starts = res.body.slots.map((s) => s.start);
      expect(starts.find((s) => s.startsWith(fri))).toBe(`${fri}T13:00:00.000Z`);
      expect(starts.find((s) => s.startsWith(mon))).toBe(`${mon}T14:00:00.000Z`);
    });

    it('Asia/Kolkata (UTC+05:30): 09:00 local is 03:30Z, and a date range is read in that zone', async () => {
      const monday = nextWeekday(1);
      const p = await createProvider(suite.app, suite.tenant.testKey, { timezone: 'Asia/Kolkata' });
      const res = await availability({ providerId: p.id, startDate: monday, endDate: monday, duration: 45 });
      const slots = res.body.slots;
      expect(slots[0].start).toBe(`${monday}T03:30:00.000Z`);
      expect(slots.at(-1)!.end).toBe(`${monday}T11:30:00.000Z`);
      expect(slots.map((s) => s.start.slice(14, 16)).every((m) => ['00', '15', '30', '45'].includes(m))).toBe(true);
    });

    it('never offers a slot in the past', async () => {
      const p = await createProvider(suite.app, suite.tenant.testKey, { timezone: 'UTC', workingHours: everyDay() });
      const now = clock.nowMs();
      const today = utcDate();
      const res = await availability({ providerId: p.id, startDate: today, endDate: today, duration: 15 });
      expect(res.status).toBe(200);
      expect(res.body.slots.every((s) => Date.parse(s.start) >= now)).toBe(true);
      if (res.body.slots.length) expect(Date.parse(res.body.slots[0].start) - now).toBeLessThanOrEqual(15 * 60_000);
      const past = await availability({ providerId: p.id, startDate: '2020-01-01', endDate: '2020-01-20' });
      expect(past.body.slots).toEqual([]);
    });

    it('answers every active provider when providerId is omitted, each slot naming its provider; none for an inactive one', async () => {
      const other = await createTenant(suite.app);
      const a = await createProvider(suite.app, other.testKey, {
        timezone: 'UTC',
        workingHours: [{ weekday: 1, start: '09:00', end: '10:00' }],
      });
      const b = await createProvider(suite.app, other.testKey, {
        timezone: 'UTC',
        workingHours: [{ weekday: 1, start: '09:30', end: '10:30' }],
      });
      const off = await createProvider(suite.app, other.testKey, { timezone: 'UTC', workingHours: everyDay(), isActive: false });
      const monday = nextWeekday(1);
      const res = await availability({ startDate: monday, endDate: monday, duration: 30 }, other.testKey);
      expect(res.status).toBe(200);
      expect(res.body.slots.map((s) => [s.start.slice(11, 16), s.providerId === a.id ? 'a' : 'b'])).toEqual([
        ['09:00', 'a'],
        ['09:15', 'a'],
        ['09:30', 'a'],
        ['09:30', 'b'],
        ['09:45', 'b'],
        ['10:00', 'b'],
      ]);
      const inactive = await availability({ providerId: off.id, startDate: monday, endDate: monday }, other.testKey);
      expect(inactive.status).toBe(200);
      expect(inactive.body.slots).toEqual([]);
      expect(b.id).not.toBe(a.id);
    });

    it.each([
      ['a range over 31 days', { startDate: '2027-01-01', endDate: '2027-02-01' }, ['endDate', 'startDate']],
      ['a reversed range', { startDate: '2027-01-10', endDate: '2027-01-09' }, ['endDate']],
      ['an impossible date', { startDate: '2027-02-30', endDate: '2027-03-01' }, ['startDate']],
      ['an impossible time', { startDate: '2027-02-01T24:30:00Z', endDate: '2027-03-01' }, ['startDate']],
      ['a missing startDate', { endDate: '2027-03-01' }, ['startDate']],
      ['a date-time without an offset', { startDate: '2027-02-01T09:00', endDate: '2027-02-02' }, ['startDate']],
      ['a huge duration', { startDate: '2027-01-01', endDate: '2027-01-02', duration: 481 }, ['duration']],
      ['a tiny duration', { startDate: '2027-01-01', endDate: '2027-01-02', duration: 4 }, ['duration']],
      ['a non-numeric duration', { startDate: '2027-01-01', endDate: '2027-01-02', duration: '1e309' }, ['duration']],
      ['a malformed providerId', { providerId: 'abc', startDate: '2027-01-01', endDate: '2027-01-02' }, ['providerId']],
    ])('refuses %s with a 400 naming the fields', async (_label, params, fields) => {
      const res = await availability<Problem>(params);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_failed');
      expect(fieldsOf(res.body).sort()).toEqual(fields);
    });

    it('accepts exactly 31 days', async () => {
      const first = DateTime.fromISO(utcDate(30), { zone: 'utc' });
      let lastWeekday = first.plus({ days: 30 });
      while (lastWeekday.weekday > 5) lastWeekday = lastWeekday.minus({ days: 1 });
      const p = await createProvider(suite.app, suite.tenant.testKey);
      const res = await availability({ providerId: p.id, startDate: first.toISODate()!, endDate: first.plus({ days: 30 }).toISODate()! });
      expect(res.status).toBe(200);
      expect(res.body.slots.at(-1)!.start.slice(0, 10)).toBe(lastWeekday.toISODate()); // the last weekday of the range
    });

    it('answers 404 for an unknown provider', async () => {
      const res = await availability({
        providerId: '00000000-0000-4000-8000-000000000000',
        startDate: '2027-01-01',
        endDate: '2027-01-02',
      });
      expect(res.status).toBe(404);
    });
  });

  describe('access', () => {
    it("cannot see another tenant's or mode's providers, time off or availability", async () => {
      const p = await createProvider(suite.app, suite.tenant.testKey);
      const t = await api.post<TimeOffDto>(`${SCHEDULING}/providers/${p.id}/time-off`, {
        start: `${utcDate(30)}T10:00:00Z`,
        end: `${utcDate(30)}T11:00:00Z`,
      });
      const other = await createTenant(suite.app);
      for (const key of [other.testKey, suite.tenant.liveKey]) {
        const them = suite.api(key);
        expect((await them.get(`${SCHEDULING}/providers/${p.id}`)).status).toBe(404);
        expect((await them.patch(`${SCHEDULING}/providers/${p.id}`, { name: 'Mine now' })).status).toBe(404);
        expect((await them.get(`${SCHEDULING}/providers/${p.id}/time-off`)).status).toBe(404);
        expect(
          (await them.post(`${SCHEDULING}/providers/${p.id}/time-off`, { start: '2027-02-03T10:00:00Z', end: '2027-02-03T11:00:00Z' }))
            .status,
        ).toBe(404);
        expect((await them.delete(`${SCHEDULING}/providers/${p.id}/time-off/${t.body.id}`)).status).toBe(404);
        expect((await availability({ providerId: p.id, startDate: '2027-01-04', endDate: '2027-01-05' }, key)).status).toBe(404);
        const list = await them.get<ProviderListDto>(`${SCHEDULING}/providers`);
        expect(list.body.providers.map((x) => x.id)).not.toContain(p.id);
      }
      expect((await api.get<ProviderDto>(`${SCHEDULING}/providers/${p.id}`)).body.name).toBe(p.name);
      expect((await api.get<TimeOffListDto>(`${SCHEDULING}/providers/${p.id}/time-off`)).body.timeOff).toHaveLength(1);
    });

    it('needs scheduling:read to read and scheduling:write to write', async () => {
      const p = await createProvider(suite.app, suite.tenant.testKey);
      const reader = await createKey(suite.app, suite.tenant.testKey, { scopes: ['scheduling:read'], role: 'STAFF' });
      const patientsOnly = await createKey(suite.app, suite.tenant.testKey, { scopes: ['patients:read'] });
      expect((await suite.api(reader).get(`${SCHEDULING}/providers/${p.id}`)).status).toBe(200);
      expect((await availability({ providerId: p.id, startDate: '2027-01-04', endDate: '2027-01-05' }, reader)).status).toBe(200);
      const write = await suite.api(reader).post<Problem>(`${SCHEDULING}/providers`, { name: 'X', timezone: 'UTC', workingHours: [] });
      expect(write.status).toBe(403);
      expect(write.body.code).toBe('insufficient_scope');
      expect((await suite.api(reader).patch(`${SCHEDULING}/providers/${p.id}`, { name: 'X' })).status).toBe(403);
      expect((await suite.api(patientsOnly).get(`${SCHEDULING}/providers`)).status).toBe(403);
      expect((await availability({ startDate: '2027-01-04', endDate: '2027-01-05' }, patientsOnly)).status).toBe(403);
      expect((await client(suite.app).get(`${SCHEDULING}/providers`)).status).toBe(401);
    });
  });
});
