import type { RateLimitWindow } from '../../config/app-config';
import { rateLimitDetail, rateLimitHeaders, retryAfterSeconds, tightestWindow, WindowState } from './rate-limit-headers';

const second: RateLimitWindow = { name: 'second', seconds: 1, limit: 10 };
const hour: RateLimitWindow = { name: 'hour', seconds: 3600, limit: 100 };
const day: RateLimitWindow = { name: 'day', seconds: 86400, limit: 1000 };

describe('rate-limit headers', () => {
  const now = 1_800_000_000_000; // ms, a whole second

  it('reports the window with the fewest remaining requests', () => {
    const states: WindowState[] = [
      { window: second, remaining: 9, resetMs: 1000 },
      { window: hour, remaining: 57, resetMs: 1_259_400 },
      { window: day, remaining: 900, resetMs: 80_000_000 },
    ];
    expect(rateLimitHeaders(states, now)).toEqual({
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '9',
      'x-ratelimit-reset': String(now / 1000 + 1),
      'ratelimit-policy': '"second";q=10;w=1, "hour";q=100;w=3600, "day";q=1000;w=86400',
      ratelimit: '"second";r=9;t=1',
    });
  });

  it('describes the tightest window when the others were not computed (null reset)', () => {
    const states: WindowState[] = [
      { window: second, remaining: 9, resetMs: null },
      { window: hour, remaining: 3, resetMs: 600_000 },
      { window: day, remaining: 900, resetMs: null },
    ];
    expect(tightestWindow(states).window).toBe(hour);
    expect(rateLimitHeaders(states, now)).toMatchObject({ 'x-ratelimit-reset': String(now / 1000 + 600), ratelimit: '"hour";r=3;t=600' });
  });

  it('formats the documented example for an hour window', () => {
    const headers = rateLimitHeaders([{ window: hour, remaining: 57, resetMs: 1_259_400 }], now);
    expect(headers.ratelimit).toBe('"hour";r=57;t=1260');
    expect(headers['ratelimit-policy']).toBe('"hour";q=100;w=3600');
    expect(headers['x-ratelimit-reset']).toBe(String(now / 1000 + 1260));
  });

  it('breaks a tie on remaining by the window that frees a request last', () => {
    const states: WindowState[] = [
      { window: second, remaining: 0, resetMs: 300 },
      { window: hour, remaining: 0, resetMs: 2_000_000 },
    ];
    expect(tightestWindow(states).window.name).toBe('hour');
  });

  it('rounds Reset up to the second in which the request is freed', () => {
    const headers = rateLimitHeaders([{ window: second, remaining: 0, resetMs: 1 }], now + 999);
    expect(headers['x-ratelimit-reset']).toBe(String(now / 1000 + 1));
    expect(headers.ratelimit).toBe('"second";r=0;t=1');
  });

  it('answers t=0 for an empty window', () => {
    expect(rateLimitHeaders([{ window: day, remaining: 1000, resetMs: 0 }], now).ratelimit).toBe('"day";r=1000;t=0');
  });

  it('rounds Retry-After up and never below 1 second', () => {
    expect(retryAfterSeconds(0)).toBe(1);
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(1000)).toBe(1);
    expect(retryAfterSeconds(1000.5)).toBe(2);
    expect(retryAfterSeconds(3_599_001)).toBe(3600);
  });

  it('names the window and its limit in the 429 detail', () => {
    expect(rateLimitDetail(hour, 42)).toBe('Rate limit of 100 requests per hour exceeded; retry in 42 s');
    expect(rateLimitDetail({ name: 'day', seconds: 86400, limit: 1 }, 1)).toBe('Rate limit of 1 request per day exceeded; retry in 1 s');
  });

  it('refuses an empty list', () => {
    expect(() => tightestWindow([])).toThrow();
  });
});
