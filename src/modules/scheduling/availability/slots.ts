import { DateTime } from 'luxon';

/** One weekly working interval in the provider's local time: weekday 1 (Monday) to 7, "HH:MM" (end may be "24:00"). */
export interface WorkingInterval {
  weekday: number;
  start: string;
  end: string;
}

/** A half-open span of time [start, end) in epoch milliseconds. */
export interface Interval {
  start: number;
  end: number;
}

export interface SlotQuery {
  /** IANA zone the working hours are written in. */
  timezone: string;
  workingHours: WorkingInterval[];
  /** Slots lie wholly inside [from, to). */
  from: number;
  to: number;
  /** Minutes. */
  duration: number;
  /** Appointments and time off; a slot overlapping any of them is not free. */
  busy: Interval[];
  /** Slots starting before this instant are in the past. */
  now: number;
  /** Stop after this many slots (alternatives need three). */
  limit?: number;
  /** Minutes between slot starts; default gridStep(duration). */
  step?: number;
  /** A further rule a slot start must pass (an appointment type's horizon and daily cap). */
  allow?: (start: number) => boolean;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

/** Slots start on a grid of the duration, or of 15 minutes if that is smaller. */
export function gridStep(duration: number): number {
  return Math.min(duration, 15);
}

/** "HH:MM" as minutes after midnight; "24:00" is the end of the day. */
export function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return h * 60 + m;
}

/** A working window; `offsetChanges` when a day it covers has a UTC-offset change (a wall-clock time may repeat). */
export interface WorkingWindow extends Interval {
  offsetChanges: boolean;
}

/**
 * The provider's working windows overlapping [from, to), as instants, in order; touching or overlapping
 * intervals of one day are merged (09:00–12:00 and 12:00–17:00 allow a slot across noon).
 * Each window is computed from its local date and wall-clock times by Luxon, so 09:00 stays 09:00 local
 * on both sides of a daylight-saving change. Days are memoized (see localDay): Luxon's zone arithmetic is
 * what an availability request over a month of days would otherwise spend most of its time on.
 */
export function workingWindows(timezone: string, hours: WorkingInterval[], from: number, to: number): WorkingWindow[] {
  const windows: WorkingWindow[] = [];
  const first = DateTime.fromMillis(from, { zone: timezone });
  // Calendar dates step in UTC arithmetic (a date has no zone); each date's instants come from localDay.
  for (let date = Date.UTC(first.year, first.month - 1, first.day); ; date += DAY) {
    const day = localDay(timezone, hours, date);
    if (day.start >= to) break;
    for (const w of day.windows) {
      if (w.end <= from || w.start >= to) continue;
      const last = windows[windows.length - 1];
      if (last && w.start <= last.end) {
        last.end = Math.max(last.end, w.end);
        last.offsetChanges ||= day.offsetChanges;
      } else windows.push({ start: w.start, end: w.end, offsetChanges: day.offsetChanges });
    }
  }
  return windows;
}

interface LocalDay {
  /** The first instant of the local date. */
  start: number;
  /** The date's working intervals as instants, in order, touching ones merged. */
  windows: Interval[];
  /** The UTC offset differs between the start of this date and the next. */
  offsetChanges: boolean;
}

/** Memo of localDay: a zone's rules do not change while the process runs. Cleared whole when full. */
const LOCAL_DAYS = new Map<string, LocalDay>();
const LOCAL_DAYS_MAX = 50_000;

/** One local date (`date`: its midnight in UTC arithmetic) of a timezone with the weekly hours, memoized. */
function localDay(timezone: string, hours: WorkingInterval[], date: number): LocalDay {
  const utc = new Date(date);
  const weekday = ((utc.getUTCDay() + 6) % 7) + 1;
  const today = hours
    .filter((h) => h.weekday === weekday)
    .map((h) => [minutesOf(h.start), minutesOf(h.end)] as const)
    .sort((a, b) => a[0] - b[0]);
  const key = `${timezone}|${date}|${today.join(';')}`;
  const known = LOCAL_DAYS.get(key);
  if (known) return known;
  const [year, month, day] = [utc.getUTCFullYear(), utc.getUTCMonth() + 1, utc.getUTCDate()];
  const start = DateTime.fromObject({ year, month, day }, { zone: timezone }).startOf('day');
  const next = start.plus({ days: 1 });
  const windows: Interval[] = [];
  for (const [startMinutes, endMinutes] of today) {
    const from = localInstant(timezone, year, month, day, startMinutes);
    const to = localInstant(timezone, year, month, day, endMinutes);
    if (to <= from) continue;
    const last = windows[windows.length - 1];
    if (last && from <= last.end) last.end = Math.max(last.end, to);
    else windows.push({ start: from, end: to });
  }
  const result = { start: start.toMillis(), windows, offsetChanges: start.offset !== next.offset };
  if (LOCAL_DAYS.size >= LOCAL_DAYS_MAX) LOCAL_DAYS.clear();
  LOCAL_DAYS.set(key, result);
  return result;
}

/**
 * The instant of a local wall-clock time. A time inside a spring-forward gap becomes the first instant
 * after the gap (Luxon's rule), which only matters for a window edge: no slot is generated from it.
 */
function localInstant(timezone: string, year: number, month: number, day: number, minutes: number): number {
  if (minutes >= 24 * 60) return DateTime.fromObject({ year, month, day }, { zone: timezone }).plus({ days: 1 }).toMillis();
  return DateTime.fromObject({ year, month, day, hour: Math.floor(minutes / 60), minute: minutes % 60 }, { zone: timezone }).toMillis();
}

/** Busy spans sorted by start and merged, so that one forward sweep answers "does this slot overlap any". */
export function mergeIntervals(intervals: Interval[]): Interval[] {
  const sorted = intervals.filter((i) => i.end > i.start).sort((a, b) => a.start - b.start);
  const merged: Interval[] = [];
  for (const i of sorted) {
    const last = merged[merged.length - 1];
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else merged.push({ ...i });
  }
  return merged;
}

/**
 * The free slots of one provider: inside working hours, on the grid from each window's start, not in the
 * past, not overlapping anything busy, wholly inside [from, to). Ascending.
 *
 * Daylight saving: the grid advances in real time from the window's start, so across a spring-forward
 * change no slot falls in the skipped hour (it has no instants), and across a fall-back change a local
 * time seen already in the window (the repeated hour) is not offered a second time: each wall-clock time
 * is offered once, at its first occurrence.
 */
export function freeSlots(q: SlotQuery): Interval[] {
  const length = q.duration * MINUTE;
  const step = (q.step ?? gridStep(q.duration)) * MINUTE;
  const busy = mergeIntervals(q.busy);
  const slots: Interval[] = [];
  let b = 0;
  for (const window of workingWindows(q.timezone, q.workingHours, q.from, q.to)) {
    // Only a window on a day with an offset change can repeat a wall-clock time; the others skip the lookup.
    const seen = window.offsetChanges ? new Set<string>() : undefined;
    for (let start = window.start; start + length <= window.end; start += step) {
      const end = start + length;
      if (start < q.now || start < q.from || end > q.to) continue;
      if (seen) {
        const wall = DateTime.fromMillis(start, { zone: q.timezone }).toFormat('HH:mm');
        if (seen.has(wall)) continue;
        seen.add(wall);
      }
      while (b < busy.length && busy[b].end <= start) b++;
      if (b < busy.length && busy[b].start < end) continue;
      if (q.allow && !q.allow(start)) continue;
      slots.push({ start, end });
      if (q.limit !== undefined && slots.length >= q.limit) return slots;
    }
  }
  return slots;
}

/**
 * Whether [start, start + duration) lies wholly inside one working window of the provider; with `step`
 * (minutes), also whether it starts on the grid freeSlots walks there: a whole number of steps after the
 * window's start.
 */
export function withinWorkingHours(timezone: string, hours: WorkingInterval[], start: number, duration: number, step?: number): boolean {
  const end = start + duration * MINUTE;
  return workingWindows(timezone, hours, start - DAY, end + DAY).some(
    (w) => w.start <= start && end <= w.end && (step === undefined || (start - w.start) % (step * MINUTE) === 0),
  );
}

/** Whether [start, end) overlaps any of the intervals. */
export function overlapsAny(start: number, end: number, intervals: Interval[]): boolean {
  return intervals.some((i) => i.start < end && start < i.end);
}

/** What shape validation cannot see: each interval ends after it starts, and one day's intervals do not overlap. */
export function workingHoursProblems(hours: WorkingInterval[], field = 'workingHours'): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  hours.forEach((h, i) => {
    if (minutesOf(h.end) <= minutesOf(h.start)) problems.push({ field: `${field}.${i}.end`, message: 'must be after start' });
  });
  if (problems.length) return problems;
  const order = hours.map((h, i) => ({ h, i })).sort((a, b) => a.h.weekday - b.h.weekday || minutesOf(a.h.start) - minutesOf(b.h.start));
  for (let k = 1; k < order.length; k++) {
    const prev = order[k - 1].h;
    const cur = order[k];
    if (cur.h.weekday === prev.weekday && minutesOf(cur.h.start) < minutesOf(prev.end)) {
      problems.push({ field: `${field}.${cur.i}.start`, message: `overlaps another interval of weekday ${cur.h.weekday}` });
    }
  }
  return problems;
}
