import { createHash } from 'node:crypto';
import { ValidationFailedException } from '../http/errors/problem';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
const MAX_KEY_LENGTH = 255;

/** Response headers kept with a stored response and sent again on a replay. */
export const REPLAYED_RESPONSE_HEADERS = ['location', 'etag', 'content-type', 'cache-control'] as const;

/** The Idempotency-Key header's value, or undefined when absent; 400 when it is not 1-255 characters. */
export function parseIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (Array.isArray(header) || header.length < 1 || header.length > MAX_KEY_LENGTH) {
    throw new ValidationFailedException([
      { field: 'Idempotency-Key', message: `must be a single header of 1-${MAX_KEY_LENGTH} characters` },
    ]);
  }
  return header;
}

/** JSON with object keys sorted at every level, so that key order does not make two bodies differ. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

/**
 * What makes two requests "the same" for an Idempotency-Key: the method, the path with its query string
 * (as sent) and the parsed JSON body (key order ignored). SHA-256, hex.
 */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()}\n${url}\n${canonicalJson(body)}`)
    .digest('hex');
}

/** How an Idempotency-Key is stored: its SHA-256 (hex), which bounds its length. */
export function idempotencyKeyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A first response as kept for replays. */
export interface StoredResponse {
  status: number;
  /** The serialised body as it was sent ('' for none). */
  body: string;
  headers: Record<string, string>;
}

/** What is recorded under an Idempotency-Key: a request still running, or its final response. */
export type IdempotencyRecord =
  { state: 'running'; fingerprint: string } | { state: 'done'; fingerprint: string; response: StoredResponse };
