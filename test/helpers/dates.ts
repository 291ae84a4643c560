import { DateTime } from 'luxon';
import { clock } from '../../src/common/time/clock';

const DAY = 86_400_000;

/**
 * Dates for tests, derived from the clock the apps read (moved by CLOCK_OFFSET_MS in the same way in the
 * test process, see clock-setup.ts) rather than from the calendar: a suite passes on any day it runs.
 */

/** The UTC calendar date (`YYYY-MM-DD`) `days` after the clock's today (negative: before). */
export const utcDate = (days = 0): string => new Date(clock.nowMs() + days * DAY).toISOString().slice(0, 10);

/**
 * Hands out a new UTC date on each call, in order, the first at least `fromDays` days ahead, so that each
 * test books on a day of its own that "now" does not reach during the run. `weekdaysOnly`: Monday to
 * Friday only (for providers who work weekdays).
 */
export function dayByDay(options: { fromDays?: number; weekdaysOnly?: boolean } = {}): () => string {
  const { fromDays = 30, weekdaysOnly = false } = options;
  let next = DateTime.fromMillis(clock.nowMs(), { zone: 'utc' }).startOf('day').plus({ days: fromDays });
  return () => {
    while (weekdaysOnly && next.weekday > 5) next = next.plus({ days: 1 });
    const day = next.toISODate()!;
    next = next.plus({ days: 1 });
    return day;
  };
}

/** The first `weekday` (1 Monday … 7 Sunday) at least `fromDays` days ahead, as a UTC date. */
export function nextWeekday(weekday: number, fromDays = 30): string {
  let day = DateTime.fromMillis(clock.nowMs(), { zone: 'utc' }).startOf('day').plus({ days: fromDays });
  while (day.weekday !== weekday) day = day.plus({ days: 1 });
  return day.toISODate()!;
}

/**
 * The next local day in `zone`, at least `fromDays` days ahead, on which the clocks go forward (spring)
 * or back (autumn), as a start of day in that zone; found by comparing each day's UTC offset with the
 * next day's, so it follows the zone's rules for whichever year the clock says it is.
 */
export function nextOffsetChange(zone: string, direction: 'forward' | 'back', fromDays = 3): DateTime {
  let day = DateTime.fromMillis(clock.nowMs(), { zone }).startOf('day').plus({ days: fromDays });
  for (let i = 0; i < 800; i++, day = day.plus({ days: 1 })) {
    const change = day.plus({ days: 1 }).offset - day.offset;
    if (direction === 'forward' ? change > 0 : change < 0) return day;
  }
  throw new Error(`${zone} changes its clocks ${direction} in no day of the next two years`);
}
