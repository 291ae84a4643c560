import { DateTime } from 'luxon';
import { FieldError, ValidationFailedException } from '../../../common/http/errors/problem';

/** A range bound as sent: a calendar date (read in the provider's timezone) or an instant. */
export type Bound = { date: string } | { instant: number };

export const MAX_RANGE_DAYS = 31;
const DAY = 86_400_000;

function parse(value: string): Bound | undefined {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return DateTime.fromISO(value, { zone: 'utc' }).isValid ? { date: value } : undefined;
  const instant = DateTime.fromISO(value, { setZone: true });
  return instant.isValid ? { instant: instant.toMillis() } : undefined;
}

/** A rough UTC reading of a bound, used only to check order and length independently of any provider. */
function approx(bound: Bound, end: boolean): number {
  if ('instant' in bound) return bound.instant;
  return Date.parse(`${bound.date}T00:00:00Z`) + (end ? DAY : 0);
}

/**
 * Parses and checks startDate/endDate: real dates, end after start, at most 31 days apart (a date as end
 * includes that whole day). 400 naming the fields otherwise.
 */
export interface DateRange {
  start: Bound;
  end: Bound;
}

export function parseRange(startDate: string, endDate: string): DateRange {
  const start = parse(startDate);
  const end = parse(endDate);
  const errors: FieldError[] = [];
  if (!start) errors.push({ field: 'startDate', message: 'is not a real date or date-time' });
  if (!end) errors.push({ field: 'endDate', message: 'is not a real date or date-time' });
  if (start && end) {
    const span = approx(end, true) - approx(start, false);
    if (span <= 0) errors.push({ field: 'endDate', message: 'must be after startDate' });
    else if (span > MAX_RANGE_DAYS * DAY) {
      const message = `the range from startDate to endDate must be at most ${MAX_RANGE_DAYS} days`;
      errors.push({ field: 'startDate', message }, { field: 'endDate', message });
    }
  }
  if (errors.length) throw new ValidationFailedException(errors);
  return { start: start!, end: end! };
}

/** The bound as an instant in a timezone: a start date at its first moment, an end date at the next day's. */
export function boundInstant(bound: Bound, timezone: string, end: boolean): number {
  if ('instant' in bound) return bound.instant;
  const day = DateTime.fromISO(bound.date, { zone: timezone }).startOf('day');
  return (end ? day.plus({ days: 1 }) : day).toMillis();
}
