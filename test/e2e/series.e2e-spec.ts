import { DateTime } from 'luxon';
import { clock } from '../../src/common/time/clock';
import type { Problem } from '../helpers/app';
import { nextOffsetChange } from '../helpers/dates';
import type { AppointmentChanged, EventPageOf } from '../helpers/events';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { bookAppointment, createProvider, everyDay, SCHEDULING } from '../helpers/scheduling';
import { useApp } from '../helpers/use-app';
import type { PatientDto } from '../../src/modules/patients';
import type { AppointmentDto, AppointmentListDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { ProviderDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type { SeriesConflictDto, SeriesDto, SeriesListDto, SeriesOutcomeDto } from '../../src/modules/scheduling/series/dto/series.dto';

const SERIES = `${SCHEDULING}/series`;
const NY = 'America/New_York';
const LONDON = 'Europe/London';

type SeriesConflicts = Problem & { conflicts: SeriesConflictDto[] };

/** A local date-time without an offset, as a series' start takes it. */
const localOf = (d: DateTime): string => d.toFormat("yyyy-MM-dd'T'HH:mm");

/** The zone's next clock change, whichever way it goes, at least `fromDays` ahead. */
function nextChange(zone: string, fromDays: number): DateTime {
  const [forward, back] = [nextOffsetChange(zone, 'forward', fromDays), nextOffsetChange(zone, 'back', fromDays)];
  return forward < back ? forward : back;
}

describe('Recurring series', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off' });
  let patient: PatientDto;
  /** A Monday at 10:00 a few weeks ahead (each test books on a provider of its own). */
  const nextStart = (): DateTime => DateTime.fromMillis(clock.nowMs(), { zone: NY }).startOf('week').plus({ weeks: 3 }).set({ hour: 10 });

  beforeAll(async () => {
    patient = await createPatient(suite.app, suite.tenant.testKey, { email: 'series@patients.test' });
  });

  const provider = (timezone = NY): Promise<ProviderDto> =>
    createProvider(suite.app, suite.tenant.testKey, { timezone, workingHours: everyDay('08:00', '18:00') });
  const create = <T = SeriesDto>(body: Record<string, unknown>, query = '') =>
    suite.api().post<T>(`${SERIES}${query}`, { patientId: patient.id, duration: 30, ...body });
  const appointmentsOf = async (providerId: string): Promise<AppointmentDto[]> =>
    (await suite.api().get<AppointmentListDto>(`${SCHEDULING}/appointments?providerId=${providerId}&limit=100`)).body.appointments;
  const seriesOf = async (providerId: string): Promise<SeriesDto[]> =>
    (await suite.api().get<SeriesListDto>(`${SERIES}?providerId=${providerId}`)).body.series;

  it.each([NY, LONDON])('keeps 10:00 local for a weekly series of 10 across the next daylight-saving change in %s', async (zone) => {
    const p = await provider(zone);
    const change = nextChange(zone, 30);
    const start = change.minus({ weeks: 4 }).set({ hour: 10, minute: 0 });
    const res = await create({ providerId: p.id, start: localOf(start), rrule: 'FREQ=WEEKLY;COUNT=10' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${SERIES}/${res.body.id}`);
    expect(res.body).toMatchObject({ timezone: zone, start: localOf(start), status: 'active', exdates: [] });
    const local = res.body.occurrences.map((o) => DateTime.fromISO(o.datetime, { zone }));
    expect(local.map((d) => d.toFormat('ccc HH:mm'))).toEqual(Array(10).fill(start.toFormat('ccc HH:mm')));
    expect(new Set(local.map((d) => d.offset)).size).toBe(2);
    expect(res.body.occurrences.map((o) => [o.index, o.status, o.reason])).toEqual(
      [...Array(10).keys()].map((i) => [i, 'scheduled', null]),
    );
    const booked = await appointmentsOf(p.id);
    expect(booked.map((a) => a.id).sort()).toEqual(res.body.occurrences.map((o) => o.appointmentId).sort());
    expect(new Set(booked.map((a) => a.seriesId))).toEqual(new Set([res.body.id]));
    expect((await suite.api().get<SeriesDto>(`${SERIES}/${res.body.id}`)).body).toEqual(res.body);
    const created = await suite.api().get<EventPageOf<SeriesDto>>('/api/v1/events?type=series.created&limit=100');
    expect(created.body.events.map((e) => e.data.id)).toContain(res.body.id);
    const bookedEvents = await suite.api().get<EventPageOf<AppointmentDto>>('/api/v1/events?type=appointment.booked&limit=100');
    expect(bookedEvents.body.events.filter((e) => e.data.seriesId === res.body.id)).toHaveLength(10);
  });

  describe('when the 7th occurrence (index 6) collides with a single booking', () => {
    let p: ProviderDto;
    let start: DateTime;
    let single: AppointmentDto;
    beforeAll(async () => {
      p = await provider();
      start = nextStart();
      single = await bookAppointment(suite.app, suite.tenant.testKey, {
        patientId: patient.id,
        providerId: p.id,
        datetime: start.plus({ weeks: 6 }).toUTC().toISO()!,
        duration: 30,
      });
    });
    const body = (): Record<string, unknown> => ({ providerId: p.id, start: localOf(start), rrule: 'FREQ=WEEKLY;COUNT=10' });

    it('rejects the series naming index 6 (the 7th) with alternatives, and writes nothing', async () => {
      const res = await create<SeriesConflicts>(body());
      expect([res.status, res.body.code]).toEqual([409, 'series_conflicts']);
      expect(res.body.conflicts).toEqual([
        {
          index: 6,
          datetime: single.datetime,
          reason: 'overlap',
          alternatives: expect.arrayContaining([expect.objectContaining({ providerId: p.id })]),
        },
      ]);
      expect(res.body.conflicts[0].alternatives).toHaveLength(3);
      expect((await appointmentsOf(p.id)).map((a) => a.id)).toEqual([single.id]);
      expect(await seriesOf(p.id)).toEqual([]);
    });

    it('answers a dry run with the series as it would be and its conflicts, writing nothing', async () => {
      const res = await create<SeriesOutcomeDto>(body(), '?dryRun=true');
      expect(res.status).toBe(200);
      expect(res.headers.location).toBeUndefined();
      expect(res.body.conflicts.map((c) => [c.index, c.reason])).toEqual([[6, 'overlap']]);
      expect(res.body.occurrences.map((o) => o.status)).toEqual([...Array(10).keys()].map((i) => (i === 6 ? 'skipped' : 'scheduled')));
      expect(res.body.occurrences.every((o) => o.appointmentId === null)).toBe(true);
      expect((await appointmentsOf(p.id)).map((a) => a.id)).toEqual([single.id]);
      expect(await seriesOf(p.id)).toEqual([]);
      const clean = await create<SeriesOutcomeDto>({ ...body(), start: localOf(start.plus({ hours: 1 })) }, '?dryRun=true');
      expect([clean.status, clean.body.conflicts]).toEqual([200, []]);
      expect(await seriesOf(p.id)).toEqual([]);
    });

    it('with onConflict skip, books the other 9 and lists the 7th (index 6) skipped', async () => {
      const res = await create({ ...body(), onConflict: 'skip' });
      expect(res.status).toBe(201);
      expect(res.body.occurrences.map((o) => [o.index, o.status, o.reason])).toEqual(
        [...Array(10).keys()].map((i) => (i === 6 ? [6, 'skipped', 'overlap'] : [i, 'scheduled', null])),
      );
      expect(res.body.occurrences[6]).toMatchObject({ appointmentId: null, datetime: single.datetime });
      const booked = await appointmentsOf(p.id);
      expect(booked).toHaveLength(10);
      expect(booked.filter((a) => a.seriesId === res.body.id)).toHaveLength(9);
    });
  });

  it('moves occurrences 5 to 10 of 10 with a following edit from the 5th, keeping their ids', async () => {
    const p = await provider();
    const start = nextStart();
    const series = (await create({ providerId: p.id, start: localOf(start), rrule: 'FREQ=WEEKLY;COUNT=10' })).body;
    const fifth = series.occurrences[4];
    const res = await suite.api().patch<SeriesOutcomeDto>(`${SERIES}/${series.id}`, {
      scope: 'following',
      from: fifth.appointmentId,
      changes: { localTime: '11:30' },
    });
    expect(res.status).toBe(200);
    expect(res.body.conflicts).toEqual([]);
    expect(res.body.occurrences.map((o) => o.appointmentId)).toEqual(series.occurrences.map((o) => o.appointmentId));
    expect(res.body.occurrences.map((o) => DateTime.fromISO(o.datetime, { zone: NY }).toFormat('HH:mm'))).toEqual([
      ...Array<string>(4).fill('10:00'),
      ...Array<string>(6).fill('11:30'),
    ]);
    expect(res.body.occurrences.map((o) => DateTime.fromISO(o.datetime, { zone: NY }).toISODate())).toEqual(
      series.occurrences.map((o) => DateTime.fromISO(o.datetime, { zone: NY }).toISODate()),
    );
    const moved = await suite.api().get<EventPageOf<AppointmentChanged>>('/api/v1/events?type=appointment.rescheduled&limit=100');
    const mine = moved.body.events.filter((e) => e.data.appointment.seriesId === series.id);
    expect(mine.map((e) => e.data.appointment.id).sort()).toEqual(
      series.occurrences
        .slice(4)
        .map((o) => o.appointmentId)
        .sort(),
    );
    const updated = await suite.api().get<EventPageOf<SeriesDto>>('/api/v1/events?type=series.updated&limit=100');
    expect(updated.body.events.map((e) => e.data.id)).toContain(series.id);
    // The change is refused as a whole when one occurrence cannot move.
    const blocker = await bookAppointment(suite.app, suite.tenant.testKey, {
      patientId: patient.id,
      providerId: p.id,
      datetime: start.plus({ weeks: 8 }).set({ hour: 14 }).toUTC().toISO()!,
    });
    const refused = await suite.api().patch<SeriesConflicts>(`${SERIES}/${series.id}`, { scope: 'all', changes: { localTime: '14:00' } });
    expect([refused.status, refused.body.conflicts.map((c) => [c.index, c.reason])]).toEqual([409, [[8, 'overlap']]]);
    expect((await suite.api().get<SeriesDto>(`${SERIES}/${series.id}`)).body.occurrences).toEqual(res.body.occurrences);
    expect(blocker.status).toBe('scheduled');
  });

  it('cancels all: one appointment.cancelled per active occurrence, and the series is cancelled', async () => {
    const p = await provider();
    const series = (await create({ providerId: p.id, start: localOf(nextStart()), rrule: 'FREQ=DAILY;COUNT=5' })).body;
    const [first, ...rest] = series.occurrences.map((o) => o.appointmentId!);
    expect((await suite.api().patch(`${SCHEDULING}/appointments/${first}`, { status: 'cancelled' })).status).toBe(200);
    const res = await suite.api().post<SeriesDto>(`${SERIES}/${series.id}/cancel`, { scope: 'all' });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('cancelled');
    expect(res.body.occurrences.map((o) => o.status)).toEqual(Array(5).fill('cancelled'));
    const events = await suite.api().get<EventPageOf<AppointmentChanged>>('/api/v1/events?type=appointment.cancelled&limit=100');
    const mine = events.body.events.filter((e) => e.data.appointment.seriesId === series.id).map((e) => e.data.appointment.id);
    expect(mine.sort()).toEqual([first, ...rest].sort());
    expect(mine.filter((id) => id === first)).toHaveLength(1);
    const cancelled = await suite.api().get<EventPageOf<SeriesDto>>('/api/v1/events?type=series.cancelled&limit=100');
    expect(cancelled.body.events.map((e) => e.data.id)).toEqual([series.id]);
  });

  it('moves every occurrence to another provider and a new length, keeping ids; the series names the new provider', async () => {
    const [before, after] = [await provider(), await provider()];
    const series = (await create({ providerId: before.id, start: localOf(nextStart()), rrule: 'FREQ=DAILY;COUNT=3' })).body;
    const res = await suite
      .api()
      .patch<SeriesOutcomeDto>(`${SERIES}/${series.id}`, { scope: 'all', changes: { providerId: after.id, durationMinutes: 45 } });
    expect([res.status, res.body.providerId]).toEqual([200, after.id]);
    const moved = await appointmentsOf(after.id);
    expect(moved.map((a) => [a.id, a.duration, a.datetime])).toEqual(series.occurrences.map((o) => [o.appointmentId, 45, o.datetime]));
    expect(await appointmentsOf(before.id)).toEqual([]);
    expect((await seriesOf(after.id)).map((s) => s.id)).toEqual([series.id]);
  });

  it("plans each occurrence's reminders, re-plans them when the series moves and cancels them with it", async () => {
    const p = await provider();
    const template = await suite
      .api()
      .post<{ id: string }>('/api/v1/emails/templates', { name: 'Soon', subject: 'Soon', textContent: 'x' });
    const type = await suite.api().post<{ id: string }>(`${SCHEDULING}/appointment-types`, {
      name: 'Weekly check',
      durationMinutes: 30,
      reminders: [{ offsetMinutes: 60, channel: 'email', templateId: template.body.id }],
    });
    const created = await create({
      providerId: p.id,
      appointmentTypeId: type.body.id,
      duration: undefined,
      start: localOf(nextStart()),
      rrule: 'FREQ=WEEKLY;COUNT=3',
    });
    expect(created.status).toBe(201);
    const series = created.body;
    const remindersOf = async (): Promise<{ datetime: string; reminders: { status: string; reason: string | null; sendAt: string }[] }[]> =>
      Promise.all(
        series.occurrences.map(async (o) => (await suite.api().get<AppointmentDto>(`${SCHEDULING}/appointments/${o.appointmentId}`)).body),
      );
    const hourBefore = (datetime: string): string => new Date(Date.parse(datetime) - 3_600_000).toISOString();
    for (const a of await remindersOf())
      expect(a.reminders).toEqual([expect.objectContaining({ status: 'scheduled', sendAt: hourBefore(a.datetime) })]);
    expect((await suite.api().patch(`${SERIES}/${series.id}`, { scope: 'all', changes: { localTime: '11:00' } })).status).toBe(200);
    for (const a of await remindersOf()) {
      expect(a.reminders.map((r) => [r.status, r.reason, r.sendAt === hourBefore(a.datetime)]).sort()).toEqual([
        ['cancelled', 'rescheduled', false],
        ['scheduled', null, true],
      ]);
    }
    expect((await suite.api().post(`${SERIES}/${series.id}/cancel`, { scope: 'all' })).status).toBe(200);
    for (const a of await remindersOf()) expect(a.reminders.map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
  });

  it.each([
    ['FREQ=HOURLY', { rrule: 'FREQ=HOURLY;COUNT=3' }, 'rrule'],
    ['both COUNT and UNTIL', { rrule: 'FREQ=WEEKLY;COUNT=3;UNTIL=20991231' }, 'rrule'],
    ['53 occurrences', { rrule: 'FREQ=DAILY;COUNT=53' }, 'rrule'],
    ['a bad timezone', { timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    ['a start with an offset', { start: `${localOf(nextStart())}:00Z` }, 'start'],
    ['an unknown onConflict', { onConflict: 'overwrite' }, 'onConflict'],
  ])('refuses %s: 400 naming the field, nothing written', async (_name, change, field) => {
    const p = await provider();
    const res = await create<Problem>({ providerId: p.id, start: localOf(nextStart()), rrule: 'FREQ=WEEKLY;COUNT=3', ...change });
    expect([res.status, res.body.code, res.body.errors?.map((e) => e.field)]).toEqual([400, 'validation_failed', [field]]);
    expect(await seriesOf(p.id)).toEqual([]);
  });

  it('refuses a following edit without from, and an edit that changes nothing', async () => {
    const p = await provider();
    const series = (await create({ providerId: p.id, start: localOf(nextStart()), rrule: 'FREQ=DAILY;COUNT=2' })).body;
    const noFrom = await suite.api().patch<Problem>(`${SERIES}/${series.id}`, { scope: 'following', changes: { localTime: '11:00' } });
    expect([noFrom.status, noFrom.body.errors?.map((e) => e.field)]).toEqual([400, ['from']]);
    const nothing = await suite.api().patch<Problem>(`${SERIES}/${series.id}`, { scope: 'all', changes: {} });
    expect([nothing.status, nothing.body.errors?.map((e) => e.field)]).toEqual([400, ['changes']]);
  });

  it('of five concurrent series and single bookings on one provider, exactly one wins each time and none overlap', async () => {
    const p = await provider();
    const start = nextStart();
    const at = (weeks: number, minutes = 0): string => start.plus({ weeks, minutes }).toUTC().toISO()!;
    const results = await Promise.all([
      create({ providerId: p.id, start: localOf(start), rrule: 'FREQ=WEEKLY;COUNT=3' }),
      create({ providerId: p.id, start: localOf(start.plus({ minutes: 15 })), rrule: 'FREQ=WEEKLY;COUNT=3' }),
      create({ providerId: p.id, start: localOf(start), rrule: 'FREQ=WEEKLY;COUNT=3', onConflict: 'skip' }),
      suite.api().post(`${SCHEDULING}/book`, { patientId: patient.id, providerId: p.id, datetime: at(0), duration: 30 }),
      suite.api().post(`${SCHEDULING}/book`, { patientId: patient.id, providerId: p.id, datetime: at(1, 15), duration: 30 }),
    ]);
    expect(results.map((r) => r.status).every((s) => s === 201 || s === 409)).toBe(true);
    const active = (await appointmentsOf(p.id)).filter((a) => a.status === 'scheduled');
    for (const a of active) {
      const overlapping = active.filter((b) => b.id !== a.id && b.datetime < a.end && a.datetime < b.end);
      expect(overlapping).toEqual([]);
    }
    // Every week's 10:00–10:45 is taken by exactly one booking.
    for (const weeks of [0, 1, 2]) {
      const [from, to] = [at(weeks), at(weeks, 45)];
      expect(active.filter((a) => a.datetime < to && from < a.end)).toHaveLength(1);
    }
    const won = results.filter((r) => r.status === 201).length;
    expect(won).toBeGreaterThanOrEqual(1);
    const series = await seriesOf(p.id);
    const bookedBySeries = series.flatMap((s) => s.occurrences.filter((o) => o.appointmentId).map((o) => o.appointmentId));
    expect(
      active
        .filter((a) => a.seriesId)
        .map((a) => a.id)
        .sort(),
    ).toEqual(bookedBySeries.sort());
  });
});
