import type { ApiPropertyOptions, OpenAPIObject } from '@nestjs/swagger';

/**
 * The OpenAPI extension that says how an example date is computed when the document is served: a date a
 * request must give in the future (an appointment, an availability range, time off, a key's expiry), and the
 * answers that show it. The committed openapi.json carries the rule and no date, so nothing in it goes stale
 * and it does not change with the day it was generated; /api/docs and /api/docs-json fill `example` in.
 */
export const EXAMPLE_FROM_NOW = 'x-example-from-now';

/** The same rule standing for a member of a request body's own example (dateFromNow): served, it is the date. */
export const DATE_FROM_NOW = 'x-date-from-now';

export interface ExampleFromNow {
  /** Days after the next Monday (UTC, 1 to 7 days ahead): a weekday, inside usual working hours. */
  daysAfterNextMonday: number;
  /** `HH:MM` UTC: the example is that date-time; absent, the date (YYYY-MM-DD). */
  time?: string;
  /** The date-time as a local wall time without an offset (`YYYY-MM-DDTHH:MM`), read in a zone the request names. */
  local?: true;
}

/**
 * Options to spread into @ApiProperty for such a date, e.g. `@ApiProperty({ format: 'date-time',
 * ...exampleFromNow(0, '15:00') })`: next Monday at 15:00 UTC (10:00 or 11:00 in New York, 15:00 or 16:00 in
 * London: inside working hours on both sides of the Atlantic, whatever the daylight-saving time).
 */
export function exampleFromNow(daysAfterNextMonday: number, time?: string): ApiPropertyOptions {
  const rule: ExampleFromNow = time === undefined ? { daysAfterNextMonday } : { daysAfterNextMonday, time };
  return { [EXAMPLE_FROM_NOW]: rule } as ApiPropertyOptions;
}

/** As exampleFromNow, for a local date-time without an offset (`YYYY-MM-DDTHH:MM`, a recurring series' start). */
export function localExampleFromNow(daysAfterNextMonday: number, time: string): ApiPropertyOptions {
  return { [EXAMPLE_FROM_NOW]: { daysAfterNextMonday, time, local: true } satisfies ExampleFromNow } as ApiPropertyOptions;
}

/**
 * Such a date as a member of a request body's own example (@ApiBody's `examples`), e.g. `{ patientId: …,
 * datetime: dateFromNow(0, '15:00') }`: where an example must leave out members Swagger UI would compose
 * from the schema (an optional id), the dates it keeps are still computed when served.
 */
export function dateFromNow(daysAfterNextMonday: number, time?: string): { [DATE_FROM_NOW]: ExampleFromNow } {
  return { [DATE_FROM_NOW]: time === undefined ? { daysAfterNextMonday } : { daysAfterNextMonday, time } };
}

/** As dateFromNow, for a local date-time without an offset (`YYYY-MM-DDTHH:MM`). */
export function localDateFromNow(daysAfterNextMonday: number, time: string): { [DATE_FROM_NOW]: ExampleFromNow } {
  return { [DATE_FROM_NOW]: { daysAfterNextMonday, time, local: true } };
}

/**
 * The UTC hours the request examples' appointments and holds take (their times are 14:00 to 16:00, and a booking
 * page's hold at 18:00, after the morning's examples have filled its providers, each an hour long at most, with
 * buffers): seed:demo books nothing between them, so that the examples work on a demo tenant too.
 */
export const EXAMPLE_APPOINTMENT_HOURS_UTC = { from: 13, to: 20 } as const;

/** The example a rule gives at `now`. */
export function exampleDate(rule: ExampleFromNow, now: Date): string {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const untilMonday = 7 - ((now.getUTCDay() + 6) % 7); // Monday: 7, Sunday: 1
  const day = new Date(today + (untilMonday + rule.daysAfterNextMonday) * 86_400_000).toISOString().slice(0, 10);
  if (rule.time === undefined) return day;
  return rule.local ? `${day}T${rule.time}` : `${day}T${rule.time}:00.000Z`;
}

/** A copy of the document with every rule's example computed at `now`. */
export function withExamplesFromNow(document: OpenAPIObject, now: Date): OpenAPIObject {
  const fill = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(fill);
    if (!value || typeof value !== 'object') return value;
    const date = (value as Record<string, unknown>)[DATE_FROM_NOW] as ExampleFromNow | undefined;
    if (date) return exampleDate(date, now);
    const out = Object.fromEntries(Object.entries(value).map(([key, v]) => [key, fill(v)]));
    const rule = (value as Record<string, unknown>)[EXAMPLE_FROM_NOW] as ExampleFromNow | undefined;
    if (rule) out.example = exampleDate(rule, now);
    return out;
  };
  return fill(document) as OpenAPIObject;
}

/**
 * The document to serve, its examples computed from `now()` and rebuilt only when they change (each
 * Monday), so that a server running for months never shows a date in the past.
 */
export function servedWithExamplesFromNow(document: OpenAPIObject, now: () => Date): () => OpenAPIObject {
  let served: { nextMonday: string; document: OpenAPIObject } | undefined;
  return () => {
    const at = now();
    const nextMonday = exampleDate({ daysAfterNextMonday: 0 }, at);
    if (served?.nextMonday !== nextMonday) served = { nextMonday, document: withExamplesFromNow(document, at) };
    return served.document;
  };
}
