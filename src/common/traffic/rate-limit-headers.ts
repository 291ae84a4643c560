import type { RateLimitWindow } from '../../config/app-config';

/** One window's state after a request was counted (or refused), as the limiter reports it. */
export interface WindowState {
  window: RateLimitWindow;
  /** Requests still allowed in this window now. */
  remaining: number;
  /**
   * Milliseconds until the window frees a request (0 when nothing is recorded in it); null when the limiter
   * did not compute it, which it does only for a window that cannot be the tightest.
   */
  resetMs: number | null;
}

/**
 * The window a client should watch: the one with the fewest requests left; on a tie, the one that frees
 * a request last (it is the one that will hold the client back).
 */
export function tightestWindow(states: readonly WindowState[]): WindowState {
  if (states.length === 0) throw new Error('tightestWindow needs at least one window');
  return states.reduce((tightest, s) =>
    s.remaining < tightest.remaining || (s.remaining === tightest.remaining && (s.resetMs ?? -1) > (tightest.resetMs ?? -1)) ? s : tightest,
  );
}

const seconds = (ms: number): number => Math.max(0, Math.ceil(ms / 1000));

/**
 * The rate-limit response fields: `X-RateLimit-*` (as GitHub sends them; Reset in Unix seconds) for the
 * tightest window, and the IETF `RateLimit-Policy` / `RateLimit` fields of
 * draft-ietf-httpapi-ratelimit-headers-11 (Structured Field lists of quoted policy names with parameters).
 */
export function rateLimitHeaders(states: readonly WindowState[], nowMs: number): Record<string, string> {
  const tight = tightestWindow(states);
  const resetMs = tight.resetMs ?? 0; // always computed for the tightest window
  const reset = Math.ceil((nowMs + resetMs) / 1000);
  return {
    'x-ratelimit-limit': String(tight.window.limit),
    'x-ratelimit-remaining': String(tight.remaining),
    'x-ratelimit-reset': String(reset),
    'ratelimit-policy': states.map((s) => `"${s.window.name}";q=${s.window.limit};w=${s.window.seconds}`).join(', '),
    ratelimit: `"${tight.window.name}";r=${tight.remaining};t=${seconds(resetMs)}`,
  };
}

/** Whole seconds for Retry-After: rounded up, so that a request sent after it succeeds, and at least 1. */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

const PER: Record<RateLimitWindow['name'], string> = { second: 'per second', hour: 'per hour', day: 'per day' };

/** "Rate limit of 10 requests per second exceeded; retry in 1 s". */
export function rateLimitDetail(window: RateLimitWindow, retryAfter: number): string {
  return `Rate limit of ${window.limit} request${window.limit === 1 ? '' : 's'} ${PER[window.name]} exceeded; retry in ${retryAfter} s`;
}
