import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { FieldError, problemOf, ValidationFailedException } from '../errors/problem';
import { addRouteHook } from '../responses/response-headers';
import { unstorableTextProblem, printableKey } from './text';

export const MAX_JSON_DEPTH = 32;

/**
 * Finds what no body may carry, in one pass over the parsed value: nesting deeper than MAX_JSON_DEPTH;
 * the prototype-poisoning keys `__proto__` and `constructor.prototype` (JSON.parse keeps them as plain
 * own keys, but merges and class-transformer downstream might not); numbers that are not finite (`1e400`
 * parses as Infinity, which JSON.stringify would store as null); and, when `checkText` is set, strings
 * or keys with NUL or unpaired surrogates, which PostgreSQL cannot store in text or jsonb. Answers the
 * dotted path of the first offence.
 */
export function findUnsafeJson(value: unknown, checkText = true): FieldError | undefined {
  const path: string[] = [];
  const at = (): string => path.join('.') || 'body';

  const visit = (node: unknown, depth: number): FieldError | undefined => {
    if (typeof node === 'string') {
      const problem = checkText ? unstorableTextProblem(node) : undefined;
      return problem ? { field: at(), message: problem } : undefined;
    }
    if (typeof node === 'number') return Number.isFinite(node) ? undefined : { field: at(), message: 'must be a finite number' };
    if (!node || typeof node !== 'object') return undefined;
    if (depth >= MAX_JSON_DEPTH) return { field: at(), message: `nests deeper than ${MAX_JSON_DEPTH} levels` };
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key];
      path.push(printableKey(key));
      const keyProblem = checkText ? unstorableTextProblem(key) : undefined;
      if (keyProblem) return { field: at(), message: `is a key that ${keyProblem}` };
      const poisoned =
        key === '__proto__' || (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype'));
      if (poisoned) return { field: at(), message: 'is a forbidden key' };
      const found = visit(child, depth + 1);
      if (found) return found;
      path.pop();
    }
    return undefined;
  };
  return visit(value, 0);
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Set with @RouteConfig({ formBody: true }) on a route that HTML forms and mail clients post to (RFC 8058
     * one-click unsubscribe sends `List-Unsubscribe=One-Click` form-encoded): it accepts form bodies too,
     * and reads nothing from them. `'fields'`: a route whose caller posts its data as a form (Twilio's
     * callbacks) gets an application/x-www-form-urlencoded body as an object of strings, checked as a JSON
     * body's strings are. Every other route answers form bodies 415.
     */
    formBody?: boolean | 'fields';
    /** Set by bindRoutes on a POST, PUT or PATCH that declares no @Body: it takes no body but `{}`. */
    noBody?: boolean;
  }
}

const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];
/** What a form route may be sent: a one-click unsubscribe body is 26 bytes, a Twilio callback about 1 KiB. */
const FORM_BODY_LIMIT = 8 * 1024;

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/** A Content-Type that names a charset other than UTF-8 (JSON is UTF-8, RFC 8259 section 8.1). */
function hasForeignCharset(contentType: string | undefined): boolean {
  const charset = contentType ? CHARSET.exec(contentType)?.[1] : undefined;
  return charset !== undefined && !/^utf-?8$/i.test(charset);
}

/**
 * The only body parser: JSON in UTF-8, size-bounded by the route's body limit (413 above it),
 * depth-bounded, free of prototype-poisoning keys, non-finite numbers and text PostgreSQL cannot store.
 * Bytes that are not UTF-8, or a syntax error, are 400 invalid_json (never decoded to U+FFFD); an unsafe
 * value is 400 validation_failed naming it; a charset other than UTF-8 is 415, as are other content
 * types (no parser matches) and form bodies on routes that do not declare `formBody`.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, raw: Buffer, done) => {
    if (hasForeignCharset(request.headers['content-type'])) {
      return done(problemOf('unsupported_media_type', 'Send request bodies as application/json in UTF-8'), undefined);
    }
    if (!isUtf8(raw)) return done(problemOf('invalid_json', 'The request body is not valid UTF-8'), undefined);
    const body = raw.toString('utf8');
    if (body.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return done(problemOf('invalid_json', 'The request body is not valid JSON'), undefined);
    }
    // A raw NUL in a JSON string is a syntax error and UTF-8 cannot encode a surrogate: both arrive only
    // as \u escapes, so text is checked only in bodies that have one.
    const unsafe = findUnsafeJson(parsed, body.includes('\\u'));
    if (unsafe) return done(new ValidationFailedException([unsafe]), undefined);
    done(null, parsed);
  });
  fastify.addContentTypeParser(FORM_TYPES, { parseAs: 'buffer', bodyLimit: FORM_BODY_LIMIT }, (request, raw: Buffer, done) => {
    const formBody = request.routeOptions.config?.formBody;
    if (!formBody) return done(problemOf('unsupported_media_type', 'Send request bodies as application/json in UTF-8'), undefined);
    if (formBody !== 'fields') return done(null, undefined);
    if (!request.headers['content-type']?.toLowerCase().startsWith(FORM_TYPES[0]) || hasForeignCharset(request.headers['content-type'])) {
      return done(problemOf('unsupported_media_type', 'Send this form as application/x-www-form-urlencoded in UTF-8'), undefined);
    }
    try {
      done(null, parseFormFields(raw));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

/**
 * An application/x-www-form-urlencoded body as field → value (the last of a repeated field). Bytes that
 * are not UTF-8, a malformed %-escape, NUL or an unpaired surrogate are 400 naming the field: nothing is
 * decoded to U+FFFD (URLSearchParams would).
 */
export function parseFormFields(raw: Buffer): Record<string, string> {
  if (!isUtf8(raw)) throw new ValidationFailedException([{ field: 'body', message: 'is not valid UTF-8' }]);
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const pair of raw.toString('utf8').split('&')) {
    if (!pair) continue;
    const at = pair.indexOf('=');
    const [rawKey, rawValue] = at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
    const key = decodeFormText(rawKey, 'body');
    fields[key] = decodeFormText(rawValue, printableKey(key));
  }
  const unsafe = findUnsafeJson(fields);
  if (unsafe) throw new ValidationFailedException([unsafe]);
  return { ...fields };
}

function decodeFormText(text: string, field: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new ValidationFailedException([{ field, message: 'is not valid form encoding' }]);
  }
}

const isEmptyObject = (body: unknown): boolean =>
  body !== null && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0;

/**
 * A route that declares no body (rotate a secret, send a test event, retry a delivery) refuses one, as
 * every other route refuses what it does not know: no body and `{}` are the only ones it takes.
 */
export function refuseBodies(route: RouteOptions): void {
  addRouteHook(route, 'preValidation', (request: FastifyRequest, _reply: unknown, done: (err?: Error) => void) => {
    const body: unknown = request.body;
    if (body === undefined || isEmptyObject(body)) return done();
    done(new ValidationFailedException([{ field: 'body', message: 'must be empty: this operation takes no body' }]));
  });
}
