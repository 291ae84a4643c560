import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { guardedLookup, isBlockedAddress, UnsafeAddressError } from './url-safety';

/** How much of a receiver's answer an attempt keeps. */
export const RESPONSE_BODY_LIMIT = 1024;

export interface AttemptResult {
  /** The receiver's HTTP status; null when none came (timeout, connection error, refused address). */
  statusCode: number | null;
  durationMs: number;
  /** The first 1 KiB of the answer, as text. */
  responseBody: string | null;
  /** Why no status came, in words safe to show the tenant. */
  error: string | null;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/**
 * POSTs one delivery. Never follows a redirect (a 3xx is an answer, and not a 2xx); refuses private
 * addresses unless allowed, checking the address it actually connects to; gives up after `timeoutMs`
 * in all (connect, send, answer). Never throws: every outcome is an AttemptResult.
 */
export function postWebhook(rawUrl: string, body: string, headers: Record<string, string>, options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const url = new URL(rawUrl);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!options.allowPrivate && (url.protocol !== 'https:' || (isIP(host) && isBlockedAddress(host)))) {
    const error = url.protocol !== 'https:' ? 'address not allowed: not https' : 'address not allowed: a private address';
    return Promise.resolve({ statusCode: null, durationMs: elapsed(), responseBody: null, error });
  }
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<AttemptResult, 'durationMs'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: options.allowPrivate ? undefined : guardedLookup,
        agent: false,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (): void => {
          const text = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8').replace(/\0/g, '');
          finish({ statusCode: res.statusCode ?? null, responseBody: text, error: null });
          res.destroy();
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= RESPONSE_BODY_LIMIT) done(); // the rest of the answer is not needed
        });
        res.on('end', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ statusCode: null, responseBody: null, error: `timeout after ${options.timeoutMs} ms` });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish({ statusCode: null, responseBody: null, error: describe(err) }));
    req.end(body);
  });
}

function describe(err: NodeJS.ErrnoException): string {
  if (err instanceof UnsafeAddressError) return err.message;
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    default:
      return `connection failed${err.code && /^[A-Z0-9_]{1,32}$/.test(err.code) ? ` (${err.code})` : ''}`;
  }
}
