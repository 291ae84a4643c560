import type { Mode } from '../database/tenant-owned.entity';
import { IntVar } from './env';

/** What each request meets on the way in: the rate limits, the key cache, Idempotency-Key records. */
export class RequestsEnv {
  @IntVar(0) RATE_LIMIT_TEST_PER_SECOND = 10;
  @IntVar(0) RATE_LIMIT_TEST_PER_HOUR = 100;
  @IntVar(0) RATE_LIMIT_TEST_PER_DAY = 1000;
  @IntVar(0) RATE_LIMIT_LIVE_PER_SECOND = 100;
  @IntVar(0) RATE_LIMIT_LIVE_PER_HOUR = 10000;
  @IntVar(0) RATE_LIMIT_LIVE_PER_DAY = 0;
  /** Per client IP, for requests without a valid key and for the public pages. */
  @IntVar(0) RATE_LIMIT_IP_PER_SECOND = 20;
  @IntVar(0) RATE_LIMIT_IP_PER_HOUR = 1000;

  /** How long a POST's first response is kept for replays under its Idempotency-Key (integrators are told 24 hours). */
  @IntVar(60, 7 * 86400)
  IDEMPOTENCY_TTL_SECONDS = 86400;

  /** How long an Idempotency-Key stays claimed by a request still running (409 for duplicates meanwhile). */
  @IntVar(1, 3600)
  IDEMPOTENCY_LOCK_SECONDS = 60;

  /** Seconds a verified key stays cached in memory; revocation evicts it at once through Redis. */
  @IntVar(0, 3600)
  AUTH_CACHE_TTL_SECONDS = 60;
}

export interface RateLimitWindow {
  name: 'second' | 'hour' | 'day';
  seconds: number;
  limit: number;
}

export type RateLimitSettings = Record<Mode | 'ip', RateLimitWindow[]>;

function windows(second: number, hour: number, day: number): RateLimitWindow[] {
  const all: RateLimitWindow[] = [
    { name: 'second', seconds: 1, limit: second },
    { name: 'hour', seconds: 3600, limit: hour },
    { name: 'day', seconds: 86400, limit: day },
  ];
  return all.filter((w) => w.limit > 0); // 0 means no limit for that window
}

export function rateLimitSettings(vars: RequestsEnv): RateLimitSettings {
  return {
    test: windows(vars.RATE_LIMIT_TEST_PER_SECOND, vars.RATE_LIMIT_TEST_PER_HOUR, vars.RATE_LIMIT_TEST_PER_DAY),
    live: windows(vars.RATE_LIMIT_LIVE_PER_SECOND, vars.RATE_LIMIT_LIVE_PER_HOUR, vars.RATE_LIMIT_LIVE_PER_DAY),
    ip: windows(vars.RATE_LIMIT_IP_PER_SECOND, vars.RATE_LIMIT_IP_PER_HOUR, 0),
  };
}

export function idempotencySettings(vars: RequestsEnv): { ttlMs: number; lockMs: number } {
  return { ttlMs: vars.IDEMPOTENCY_TTL_SECONDS * 1000, lockMs: vars.IDEMPOTENCY_LOCK_SECONDS * 1000 };
}

export function authSettings(vars: RequestsEnv): { cacheTtlMs: number } {
  return { cacheTtlMs: vars.AUTH_CACHE_TTL_SECONDS * 1000 };
}
