import { DateTime, IANAZone } from 'luxon';
import { Frequency, RRule } from 'rrule';
import type { FieldError } from '../../../common/http/errors/problem';

/** The most occurrences a series may have, and the span (in days from its start) they must fall in. */
export const MAX_OCCURRENCES = 52;
export const MAX_SPAN_DAYS = 366;

const MINUTE = 60_000;
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/**
 * The members of the rule a series may use and the shape of each value. rrule's own parser reads the rule
 * once these hold; it accepts values such as `INTERVAL=abc` or `COUNT=-3` without complaint, hence the
 * shapes here.
 */
const PARTS: Record<string, RegExp> = {
  FREQ: /^(DAILY|WEEKLY|MONTHLY)$/,
  INTERVAL: /^[1-9]\d{0,2}$/,
  COUNT: /^[1-9]\d{0,2}$/,
  UNTIL: /^\d{8}(T\d{6}Z?)?$/,
  BYDAY: /^([+-]?[1-5]?(MO|TU|WE|TH|FR|SA|SU))(,[+-]?[1-5]?(MO|TU|WE|TH|FR|SA|SU))*$/,
  BYMONTHDAY: /^-?([1-9]|[12]\d|3[01])(,-?([1-9]|[12]\d|3[01]))*$/,
};

/** A local date-time without an offset (`YYYY-MM-DDTHH:MM`), as wall-clock fields. */
export interface LocalDateTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
}

/** One occurrence of a series: its position in the rule (from 0, exdates included), its wall time and its instant. */
export interface Occurrence {
  index: number;
  local: string;
  start: number;
}

export interface Recurrence {
  start: string;
  timezone: string;
  rrule: string;
  exdates: readonly string[];
}

/** The occurrences of a recurrence, or the fields that make it invalid. */
export type Expansion = { occurrences: Occurrence[] } | { errors: FieldError[] };

export function parseLocal(value: string): LocalDateTime | undefined {
  const m = LOCAL_DATE_TIME.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour, minute] = m.slice(1).map(Number);
  const check = DateTime.fromObject({ year, month, day, hour, minute }, { zone: 'utc' });
  return check.isValid && check.day === day && hour < 24 ? { year, month, day, hour, minute } : undefined;
}

const formatLocal = (floating: Date): string => floating.toISOString().slice(0, 16);
const floatingOf = (l: LocalDateTime): Date => new Date(Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute));

/**
 * The instant of a wall time in a zone. A time the clocks skip (spring forward) moves forward by the gap, as
 * RFC 5545 has it: read with the offset in force before the gap. A time they pass twice (fall back) is the
 * first of the two, the earlier instant.
 */
export function placeLocal(local: LocalDateTime, timezone: string): number {
  const zone = IANAZone.create(timezone);
  const floating = floatingOf(local).getTime();
  const before = zone.offset(floating - 36 * 60 * MINUTE);
  const after = zone.offset(floating + 36 * 60 * MINUTE);
  const candidates = [floating - before * MINUTE, floating - after * MINUTE].filter(
    (instant) => floating - instant === zone.offset(instant) * MINUTE,
  );
  return candidates.length ? Math.min(...candidates) : floating - before * MINUTE;
}

/** The same local date as `instant` in the zone, at another wall time (`HH:MM`), placed as placeLocal does. */
export function atLocalTime(instant: number, timezone: string, time: string): number {
  const day = DateTime.fromMillis(instant, { zone: timezone });
  const [hour, minute] = time.split(':').map(Number);
  return placeLocal({ year: day.year, month: day.month, day: day.day, hour, minute }, timezone);
}

/**
 * The rule's parts, checked against the subset a series takes: FREQ=DAILY|WEEKLY|MONTHLY, INTERVAL, BYDAY
 * (days for WEEKLY; days or nth days such as 2TU and -1FR for MONTHLY), BYMONTHDAY (MONTHLY), and exactly one
 * of COUNT and UNTIL. A message for the `rrule` field, or undefined when it fits.
 */
function ruleProblem(rrule: string): string | undefined {
  const parts = new Map<string, string>();
  for (const part of rrule.replace(/^RRULE:/, '').split(';')) {
    const [key, value, extra] = part.split('=');
    if (!key || value === undefined || extra !== undefined) return `has a malformed part "${part}"`;
    if (!PARTS[key]) return `may use only FREQ, INTERVAL, BYDAY, BYMONTHDAY, COUNT and UNTIL, not ${key}`;
    if (parts.has(key)) return `names ${key} twice`;
    if (!PARTS[key].test(value)) return `has an invalid ${key} (${value})`;
    parts.set(key, value);
  }
  const freq = parts.get('FREQ');
  if (!freq) return 'must name FREQ (DAILY, WEEKLY or MONTHLY)';
  if (parts.has('COUNT') === parts.has('UNTIL')) return 'must have exactly one of COUNT and UNTIL';
  const byDay = parts.get('BYDAY');
  if (byDay && freq === 'DAILY') return 'may use BYDAY only with FREQ=WEEKLY or MONTHLY';
  if (byDay && freq === 'WEEKLY' && /\d/.test(byDay)) return 'may use nth days in BYDAY (2TU, -1FR) only with FREQ=MONTHLY';
  if (parts.has('BYMONTHDAY') && freq !== 'MONTHLY') return 'may use BYMONTHDAY only with FREQ=MONTHLY';
  return undefined;
}

/** UNTIL as a floating (wall-clock) bound: a UTC instant read in the series' zone, a date as the end of that day. */
function floatingUntil(raw: string, timezone: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/.exec(raw)!;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (m[4] === undefined) return new Date(Date.UTC(year, month - 1, day, 23, 59, 59));
  const fields = { year, month, day, hour: Number(m[4]), minute: Number(m[5]), second: Number(m[6]) };
  if (!m[7]) return new Date(Date.UTC(year, month - 1, day, fields.hour, fields.minute, fields.second));
  const local = DateTime.fromObject(fields, { zone: 'utc' }).setZone(timezone);
  return new Date(Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second));
}

/**
 * The occurrences of a series: the rule expanded in floating local time from `start` (COUNT counts before
 * exdates are taken out, as RFC 5545 has it), each wall time then placed in the series' zone, so 10:00 stays
 * 10:00 across a daylight-saving change. At most MAX_OCCURRENCES, all within MAX_SPAN_DAYS of the start.
 */
export function expand(recurrence: Recurrence): Expansion {
  const errors: FieldError[] = [];
  const start = parseLocal(recurrence.start);
  if (!start) errors.push({ field: 'start', message: 'must be a local date-time without an offset, YYYY-MM-DDTHH:MM' });
  const excluded = new Set<string>();
  recurrence.exdates.forEach((value, i) => {
    const exdate = parseLocal(value);
    if (!exdate) errors.push({ field: `exdates.${i}`, message: 'must be a local date-time without an offset, YYYY-MM-DDTHH:MM' });
    else excluded.add(formatLocal(floatingOf(exdate)));
  });
  const problem = ruleProblem(recurrence.rrule);
  if (problem) errors.push({ field: 'rrule', message: problem });
  if (errors.length || !start) return { errors };

  const raw = RRule.parseString(recurrence.rrule.replace(/^RRULE:/, ''));
  const dtstart = floatingOf(start);
  const untilRaw = /(?:^|;)UNTIL=([^;]+)/.exec(recurrence.rrule)?.[1];
  const rule = new RRule({
    ...raw,
    dtstart,
    until: untilRaw ? floatingUntil(untilRaw, recurrence.timezone) : null,
    // A monthly rule without BYDAY or BYMONTHDAY repeats on the start's day of the month (rrule's default too).
    ...(raw.freq === Frequency.MONTHLY && !raw.byweekday && !raw.bymonthday ? { bymonthday: [start.day] } : {}),
  });
  const spanEnd = dtstart.getTime() + MAX_SPAN_DAYS * 86_400_000;
  const dates = rule.all((date, i) => i <= MAX_OCCURRENCES && date.getTime() <= spanEnd);
  if (dates.length > MAX_OCCURRENCES || rule.after(new Date(spanEnd), true)) {
    return {
      errors: [{ field: 'rrule', message: `must give at most ${MAX_OCCURRENCES} occurrences, within ${MAX_SPAN_DAYS} days of start` }],
    };
  }
  const locals = dates.map(formatLocal);
  recurrence.exdates.forEach((value, i) => {
    if (!locals.includes(formatLocal(floatingOf(parseLocal(value)!)))) {
      errors.push({ field: `exdates.${i}`, message: 'is not an occurrence of the rule' });
    }
  });
  if (errors.length) return { errors };
  const occurrences = locals
    .map((local, index) => ({ index, local, start: placeLocal(parseLocal(local)!, recurrence.timezone) }))
    .filter((o) => !excluded.has(o.local));
  if (!occurrences.length) return { errors: [{ field: 'rrule', message: 'gives no occurrence (after exdates)' }] };
  return { occurrences };
}
