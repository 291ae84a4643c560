import { Transform } from 'class-transformer';
import type { FieldError } from '../errors/problem';
import { printableKey, unstorableTextProblem } from './text';

/** Where parseQuery leaves the first problem it met; a symbol, so that no DTO ever sees it. */
const QUERY_PROBLEM = Symbol('queryProblem');

export type ParsedQuery = Record<string, string | string[]> & { [QUERY_PROBLEM]?: FieldError };

/**
 * Fastify's query-string parser (`routerOptions.querystringParser`), as fast-querystring parses (repeated
 * keys become arrays, `+` is a space, a null-prototype object) but strict: a value or key that is not
 * percent-encoded UTF-8 (`%ED%A0%80`, a lone surrogate; `%E0%A4%A`), or that decodes to NUL, is
 * noted rather than passed on raw or as U+FFFD. The router cannot answer from here, so the problem is
 * kept on the result and `queryProblem` (an onRequest hook) turns it into a 400.
 */
export function parseQuery(input: string): ParsedQuery {
  const result = Object.create(null) as ParsedQuery;
  if (!input) return result;
  const note = (field: string, message: string): void => {
    result[QUERY_PROBLEM] ??= { field: printableKey(field), message };
  };
  for (const pair of input.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    const key = decode(rawKey);
    const value = eq === -1 ? '' : decode(pair.slice(eq + 1));
    if (key === undefined || value === undefined) {
      note(key ?? rawKey, 'is not valid percent-encoded UTF-8');
      continue;
    }
    const problem = unstorableTextProblem(key) ?? unstorableTextProblem(value);
    if (problem) note(key, problem);
    const existing = result[key];
    if (existing === undefined) result[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else result[key] = [existing, value];
  }
  return result;
}

function decode(raw: string): string | undefined {
  const text = raw.includes('+') ? raw.replace(/\+/g, ' ') : raw;
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** The problem parseQuery noted in a request's query, if any. */
export function queryProblem(query: unknown): FieldError | undefined {
  return query && typeof query === 'object' ? (query as ParsedQuery)[QUERY_PROBLEM] : undefined;
}

/** A query integer as written in decimal: optional minus, digits, no leading zero (`0x10`, `1e1`, ` 10`, `+10`, `010` are not). */
const DECIMAL_INTEGER = /^-?(0|[1-9]\d{0,15})$/;

/**
 * The one way a query member becomes an integer (`@QueryInt() @IsInt() limit?: number`): plain decimal
 * digits are converted, anything else stays a string for `@IsInt()` to refuse, where `Number()` would read
 * `0x10` as 16, `1e1` as 10 and ` 10` as 10.
 */
export function QueryInt(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' && DECIMAL_INTEGER.test(value) ? Number(value) : value));
}
