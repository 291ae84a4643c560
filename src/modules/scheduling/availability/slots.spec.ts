import { DateTime } from 'luxon';
import { freeSlots, Interval, SlotQuery, withinWorkingHours, workingHoursProblems, WorkingInterval, workingWindows } from './slots';

const NY = 'America/New_York';
const weekdays = (start: string, end: string): WorkingInterval[] => [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start, end }));
const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number): string => new Date(ms).toISOString();
const local = (ms: number, zone: string): string => DateTime.fromMillis(ms, { zone }).toFormat('yyyy-MM-dd HH:mm');

function slots(q: Partial<SlotQuery> & Pick<SlotQuery, 'from' | 'to'>): Interval[] {
  return freeSlots({ timezone: NY, workingHours: weekdays('09:00', '17:00'), duration: 30, busy: [], now: 0, ...q });
}

describe('freeSlots', () => {
  describe('America/New_York, March change (2027-03-14, 02:00 EST -> 03:00 EDT)', () => {
    const week = slots({ from: at('2027-03-12T00:00:00Z'), to: at('2027-03-16T00:00:00Z'), duration: 60 });

    it('keeps 09:00 local on both sides: 14:00Z on Friday (EST), 13:00Z on Monday (EDT)', () => {
      const friday = week.filter((s) => local(s.start, NY).startsWith('2027-03-12'));
      const monday = week.filter((s) => local(s.start, NY).startsWith('2027-03-15'));
      expect(iso(friday[0].start)).toBe('2027-03-12T14:00:00.000Z');
      expect(iso(monday[0].start)).toBe('2027-03-15T13:00:00.000Z');
      expect(iso(friday[friday.length - 1].end)).toBe('2027-03-12T22:00:00.000Z');
      expect(iso(monday[monday.length - 1].end)).toBe('2027-03-15T21:00:00.000Z');
      // a 60-minute slot on a 15-minute grid: 09:00 … 16:00 is 29 starts a day
      expect(friday).toHaveLength(29);
      expect(monday).toHaveLength(29);
    });

    it('offers no slot in the skipped hour and none shifted into a duplicate', () => {
      const night = slots({
        workingHours: [{ weekday: 7, start: '00:00', end: '06:00' }],
        from: at('2027-03-14T00:00:00Z'),
        to: at('2027-03-15T00:00:00Z'),
      });
      const walls = night.map((s) => local(s.start, NY).slice(11));
      expect(walls.some((w) => w.startsWith('02:'))).toBe(false);
      expect(new Set(walls).size).toBe(walls.length);
      // 00:00 EST to 06:00 EDT is five real hours: 30-minute slots every 15 minutes, 00:00 … 05:30 local
      expect(night).toHaveLength(19);
      expect(walls.slice(6, 9)).toEqual(['01:30', '01:45', '03:00']);
      expect(iso(night[night.length - 1].end)).toBe('2027-03-14T10:00:00.000Z');
    });
  });

  describe('America/New_York, November change (2027-11-07, 02:00 EDT -> 01:00 EST)', () => {
    it('keeps 09:00 local on both sides: 13:00Z on Friday (EDT), 14:00Z on Monday (EST)', () => {
      const week = slots({ from: at('2027-11-05T00:00:00Z'), to: at('2027-11-09T00:00:00Z') });
      const first = (date: string): string => iso(week.find((s) => local(s.start, NY).startsWith(date))!.start);
      expect(first('2027-11-05')).toBe('2027-11-05T13:00:00.000Z');
      expect(first('2027-11-08')).toBe('2027-11-08T14:00:00.000Z');
      expect(week.every((s) => ['09', '10', '11', '12', '13', '14', '15', '16'].includes(local(s.start, NY).slice(11, 13)))).toBe(true);
    });

    it('offers each local time of the repeated hour once, at its first occurrence', () => {
      const night = slots({
        workingHours: [{ weekday: 7, start: '00:00', end: '06:00' }],
        from: at('2027-11-07T00:00:00Z'),
        to: at('2027-11-08T00:00:00Z'),
      });
      const walls = night.map((s) => local(s.start, NY).slice(11));
      expect(new Set(walls).size).toBe(walls.length);
      expect(walls.filter((w) => w === '01:30')).toHaveLength(1);
      // 01:30 EDT (05:30Z), not 01:30 EST (06:30Z)
      expect(iso(night[walls.indexOf('01:30')].start)).toBe('2027-11-07T05:30:00.000Z');
      expect(walls[walls.length - 1]).toBe('05:30');
      expect(night).toHaveLength(23);
      // the window ends at 06:00 EST
      expect(iso(night[night.length - 1].end)).toBe('2027-11-07T11:00:00.000Z');
    });
  });

  it('Asia/Kolkata (UTC+05:30): 09:00 local is 03:30Z', () => {
    const day = freeSlots({
      timezone: 'Asia/Kolkata',
      workingHours: weekdays('09:00', '17:00'),
      from: at('2027-01-04T00:00:00+05:30'),
      to: at('2027-01-05T00:00:00+05:30'),
      duration: 30,
      busy: [],
      now: 0,
    });
    expect(iso(day[0].start)).toBe('2027-01-04T03:30:00.000Z');
    expect(iso(day[day.length - 1].end)).toBe('2027-01-04T11:30:00.000Z');
    expect(day).toHaveLength(31);
  });

  it('never overlaps a busy interval, and touching one is fine', () => {
    const from = at('2027-01-04T00:00:00Z');
    const to = at('2027-01-05T00:00:00Z');
    const busy = [
      { start: at('2027-01-04T15:00:00Z'), end: at('2027-01-04T15:30:00Z') },
      { start: at('2027-01-04T15:20:00Z'), end: at('2027-01-04T16:00:00Z') }, // overlapping busy spans merge
      { start: at('2027-01-04T20:00:00Z'), end: at('2027-01-05T02:00:00Z') }, // time off running past the end of day
    ];
    const free = slots({ from, to, busy });
    for (const s of free) for (const b of busy) expect(s.start < b.end && b.start < s.end).toBe(false);
    const starts = free.map((s) => iso(s.start).slice(11, 16));
    expect(starts).toContain('14:30'); // ends exactly when the first busy span starts
    expect(starts).toContain('16:00'); // starts exactly when the merged span ends
    expect(starts).not.toContain('15:45');
    expect(starts[starts.length - 1]).toBe('19:30');
  });

  it('never offers a slot in the past', () => {
    const now = at('2027-01-04T16:07:00Z'); // 11:07 in New York
    const free = slots({ from: at('2027-01-04T00:00:00Z'), to: at('2027-01-05T00:00:00Z'), now });
    expect(iso(free[0].start)).toBe('2027-01-04T16:15:00.000Z');
    expect(free.every((s) => s.start >= now)).toBe(true);
  });

  it('uses a grid of the duration when it is under 15 minutes, else of 15 minutes', () => {
    const range = { from: at('2027-01-04T14:00:00Z'), to: at('2027-01-04T15:00:00Z') };
    expect(slots({ ...range, duration: 10 }).map((s) => iso(s.start).slice(14, 16))).toEqual(['00', '10', '20', '30', '40', '50']);
    expect(slots({ ...range, duration: 45 }).map((s) => iso(s.start).slice(14, 16))).toEqual(['00', '15']);
  });

  it('joins touching intervals of a day, so a slot may span them, and leaves a lunch gap free of slots', () => {
    const split = [
      { weekday: 1, start: '09:00', end: '12:00' },
      { weekday: 1, start: '12:00', end: '12:30' },
      { weekday: 1, start: '13:30', end: '17:00' },
    ];
    const free = slots({ workingHours: split, from: at('2027-01-04T00:00:00Z'), to: at('2027-01-05T00:00:00Z'), duration: 60 });
    const walls = free.map((s) => local(s.start, NY).slice(11));
    expect(walls).toContain('11:30'); // 11:30–12:30 across the joined intervals
    expect(walls).not.toContain('11:45');
    expect(walls.filter((w) => w >= '11:45' && w < '13:30')).toEqual([]);
    expect(walls[walls.length - 1]).toBe('16:00');
  });

  it('stops at the limit and keeps slots wholly inside the range', () => {
    const from = at('2027-01-04T14:10:00Z');
    const free = slots({ from, to: at('2027-01-11T00:00:00Z'), limit: 3 });
    expect(free.map((s) => iso(s.start))).toEqual(['2027-01-04T14:15:00.000Z', '2027-01-04T14:30:00.000Z', '2027-01-04T14:45:00.000Z']);
  });

  it('answers nothing without working hours or on days without any', () => {
    expect(slots({ workingHours: [], from: at('2027-01-04T00:00:00Z'), to: at('2027-01-11T00:00:00Z') })).toEqual([]);
    expect(slots({ from: at('2027-01-09T00:00:00Z'), to: at('2027-01-10T00:00:00Z') })).toEqual([]); // a Saturday
  });
});

describe('workingWindows', () => {
  it('ends a 24:00 interval at the next local midnight, also on a change day', () => {
    const windows = workingWindows(
      NY,
      [{ weekday: 7, start: '22:00', end: '24:00' }],
      at('2027-03-13T12:00:00Z'),
      at('2027-03-16T00:00:00Z'),
    );
    expect(windows.map((w) => [iso(w.start), iso(w.end)])).toEqual([['2027-03-15T02:00:00.000Z', '2027-03-15T04:00:00.000Z']]);
  });
});

describe('withinWorkingHours', () => {
  const hours = weekdays('09:00', '17:00');
  it('accepts a span inside a window and refuses one crossing its edge', () => {
    expect(withinWorkingHours(NY, hours, at('2027-01-04T14:00:00Z'), 30)).toBe(true);
    expect(withinWorkingHours(NY, hours, at('2027-01-04T21:30:00Z'), 30)).toBe(true);
    expect(withinWorkingHours(NY, hours, at('2027-01-04T21:45:00Z'), 30)).toBe(false);
    expect(withinWorkingHours(NY, hours, at('2027-01-04T13:45:00Z'), 30)).toBe(false);
    expect(withinWorkingHours(NY, hours, at('2027-01-09T15:00:00Z'), 30)).toBe(false); // Saturday
  });

  it('with a step, accepts only the starts freeSlots offers: whole steps from the window start, local time', () => {
    const late = weekdays('09:10', '17:00');
    const offered = freeSlots({
      timezone: NY,
      workingHours: late,
      from: at('2027-01-04T05:00:00Z'),
      to: at('2027-01-05T05:00:00Z'),
      duration: 30,
      step: 20,
      busy: [],
      now: 0,
    });
    const everyMinute = Array.from({ length: 24 * 60 }, (_, m) => at('2027-01-04T05:00:00Z') + m * 60_000);
    const onGrid = everyMinute.filter((start) => withinWorkingHours(NY, late, start, 30, 20));
    expect(onGrid).toEqual(offered.map((s) => s.start));
    expect(withinWorkingHours(NY, late, at('2027-01-04T14:10:00Z') + 13_000, 30, 20)).toBe(false); // 09:10:13
  });
});

describe('workingHoursProblems', () => {
  it('names an interval ending before it starts and overlapping intervals of one day', () => {
    expect(workingHoursProblems([{ weekday: 1, start: '10:00', end: '09:00' }])).toEqual([
      { field: 'workingHours.0.end', message: 'must be after start' },
    ]);
    expect(
      workingHoursProblems([
        { weekday: 2, start: '09:00', end: '12:00' },
        { weekday: 1, start: '09:00', end: '12:00' },
        { weekday: 2, start: '11:00', end: '13:00' },
      ]),
    ).toEqual([{ field: 'workingHours.2.start', message: 'overlaps another interval of weekday 2' }]);
    expect(
      workingHoursProblems([
        { weekday: 1, start: '09:00', end: '12:00' },
        { weekday: 1, start: '12:00', end: '24:00' },
      ]),
    ).toEqual([]);
  });
});
