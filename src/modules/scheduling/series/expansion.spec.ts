import { DateTime } from 'luxon';
import { expand, MAX_OCCURRENCES, Occurrence, Recurrence } from './expansion';

const NY = 'America/New_York';
const LONDON = 'Europe/London';

/** Dates come from the current year's calendar rules, never written down: the spec holds on any day. */
const now = DateTime.utc();
const localOf = (d: DateTime): string => d.toFormat("yyyy-MM-dd'T'HH:mm");

/** The next local day on which the zone's clocks change in that direction (its midnight and the next one differ in offset). */
function offsetChange(zone: string, direction: 'forward' | 'back'): DateTime {
  let day = now.setZone(zone).startOf('day').plus({ days: 1 });
  for (let i = 0; i < 800; i++, day = day.plus({ days: 1 })) {
    const change = day.plus({ days: 1 }).offset - day.offset;
    if (direction === 'forward' ? change > 0 : change < 0) return day;
  }
  throw new Error(`${zone} has no ${direction} change ahead`);
}

function occurrences(recurrence: Partial<Recurrence> & { start: string; rrule: string }): Occurrence[] {
  const result = expand({ timezone: NY, exdates: [], ...recurrence });
  if ('errors' in result) throw new Error(JSON.stringify(result.errors));
  return result.occurrences;
}

const inZone = (o: Occurrence, zone: string): DateTime => DateTime.fromMillis(o.start, { zone });

describe('series expansion', () => {
  it('places the last Friday of each month (BYDAY=-1FR)', () => {
    const start = now.plus({ months: 1 }).startOf('month').set({ hour: 10 });
    const list = occurrences({ start: localOf(start), rrule: 'FREQ=MONTHLY;BYDAY=-1FR;COUNT=6' });
    expect(list).toHaveLength(6);
    list.forEach((o, i) => {
      const local = inZone(o, NY);
      const month = start.plus({ months: i });
      expect([local.weekday, local.month, local.hour, local.minute]).toEqual([5, month.month, 10, 0]);
      expect(local.plus({ weeks: 1 }).month).not.toBe(local.month);
    });
  });

  it('skips months without a 31st for BYMONTHDAY=31, as RFC 5545 does', () => {
    const start = now.plus({ years: 1 }).startOf('year').set({ hour: 9 });
    const list = occurrences({ start: localOf(start), rrule: 'FREQ=MONTHLY;BYMONTHDAY=31;COUNT=7' });
    expect(list.map((o) => inZone(o, NY).month)).toEqual([1, 3, 5, 7, 8, 10, 12]);
    expect(list.every((o) => inZone(o, NY).day === 31)).toBe(true);
  });

  it('moves a local 02:30 on the spring-forward day on by the gap, to 03:30', () => {
    const day = offsetChange(NY, 'forward');
    const [first, second] = occurrences({
      start: localOf(day.minus({ days: 1 }).set({ hour: 2, minute: 30 })),
      rrule: 'FREQ=DAILY;COUNT=3',
    });
    expect(inZone(first, NY).toFormat('HH:mm')).toBe('02:30');
    expect(inZone(second, NY).toFormat('yyyy-MM-dd HH:mm')).toBe(`${day.toISODate()} 03:30`);
  });

  it('takes the first of the two 01:30s on the fall-back day (the earlier offset)', () => {
    const day = offsetChange(NY, 'back');
    const [, second] = occurrences({ start: localOf(day.minus({ days: 1 }).set({ hour: 1, minute: 30 })), rrule: 'FREQ=DAILY;COUNT=2' });
    const local = inZone(second, NY);
    expect(local.toFormat('yyyy-MM-dd HH:mm')).toBe(`${day.toISODate()} 01:30`);
    expect(local.offset).toBe(day.offset);
    expect(DateTime.fromMillis(second.start - 3_600_000, { zone: NY }).hour).toBe(0);
  });

  it('keeps the wall time weekly across a change in London', () => {
    const day = offsetChange(LONDON, 'back');
    const list = occurrences({ start: localOf(day.minus({ weeks: 2 }).set({ hour: 10 })), rrule: 'FREQ=WEEKLY;COUNT=6', timezone: LONDON });
    expect(new Set(list.map((o) => inZone(o, LONDON).toFormat('HH:mm')))).toEqual(new Set(['10:00']));
    expect(new Set(list.map((o) => inZone(o, LONDON).offset)).size).toBe(2);
  });

  it('counts COUNT before exdates are taken out, keeping each index', () => {
    const start = now.plus({ days: 10 }).set({ hour: 9, minute: 0 });
    const list = occurrences({ start: localOf(start), rrule: 'FREQ=WEEKLY;COUNT=4', exdates: [localOf(start.plus({ weeks: 1 }))] });
    expect(list.map((o) => o.index)).toEqual([0, 2, 3]);
  });

  it.each([
    ['FREQ=HOURLY;COUNT=3', 'rrule'],
    ['FREQ=WEEKLY;COUNT=3;UNTIL=20990101', 'rrule'],
    ['FREQ=WEEKLY', 'rrule'],
    ['FREQ=WEEKLY;COUNT=3;BYSETPOS=1', 'rrule'],
    ['FREQ=WEEKLY;INTERVAL=abc;COUNT=3', 'rrule'],
    ['FREQ=WEEKLY;BYDAY=2TU;COUNT=3', 'rrule'],
    [`FREQ=WEEKLY;COUNT=${MAX_OCCURRENCES + 1}`, 'rrule'],
    ['FREQ=MONTHLY;COUNT=14', 'rrule'],
  ])('refuses %s on %s', (rrule, field) => {
    const result = expand({ start: localOf(now.plus({ days: 3 })), timezone: NY, rrule, exdates: [] });
    expect('errors' in result && result.errors.map((e) => e.field)).toEqual([field]);
  });

  it('refuses a start that is no local date-time and an exdate that is no occurrence', () => {
    const start = now.plus({ days: 3 }).set({ hour: 9, minute: 0 });
    const bad = expand({ start: `${start.toISODate()}T25:00`, timezone: NY, rrule: 'FREQ=DAILY;COUNT=2', exdates: [] });
    expect('errors' in bad && bad.errors.map((e) => e.field)).toEqual(['start']);
    const stray = expand({ start: localOf(start), timezone: NY, rrule: 'FREQ=DAILY;COUNT=2', exdates: [localOf(start.plus({ days: 5 }))] });
    expect('errors' in stray && stray.errors.map((e) => e.field)).toEqual(['exdates.0']);
  });
});
