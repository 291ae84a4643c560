/* eslint-disable @typescript-eslint/unbound-method -- a handler is passed as the key of its route metadata, never called */
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppConfig, loadConfig } from '../../config/app-config';
import { RateLimitGuard, SkipRateLimit } from './rate-limit.guard';
import { RateLimiter, RateLimitSubject } from './rate-limiter';
import type { SlidingWindowStorage } from './sliding-window.storage';

class PublicController {
  @SkipRateLimit()
  health(): void {}
  page(): void {}
}

function contextFor(handler: () => void, request: Record<string, unknown>): ExecutionContext {
  return {
    getHandler: () => handler,
    getClass: () => PublicController,
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => ({}) }),
  } as unknown as ExecutionContext;
}

describe('RateLimitGuard (whom a request is counted against)', () => {
  const config: AppConfig = loadConfig({ RATE_LIMIT_TEST_PER_SECOND: '5', RATE_LIMIT_IP_PER_SECOND: '7', RATE_LIMIT_IP_PER_HOUR: '0' });
  let hits: RateLimitSubject[];
  let guard: RateLimitGuard;

  beforeEach(() => {
    hits = [];
    const limiter = new RateLimiter({} as SlidingWindowStorage, config);
    jest.spyOn(limiter, 'hit').mockImplementation(async (subject) => void hits.push(subject));
    guard = new RateLimitGuard(new Reflector(), limiter);
  });

  it('counts an authenticated request against its key, with its mode’s windows', async () => {
    await guard.canActivate(contextFor(PublicController.prototype.page, { ip: '10.0.0.1', auth: { apiKeyId: 'k1', mode: 'test' } }));
    expect(hits).toEqual([{ id: 'key:k1', windows: config.rateLimits.test }]);
    expect(hits[0].windows.find((w) => w.name === 'second')?.limit).toBe(5);
  });

  it('counts a request without a key (public route) against the client IP', async () => {
    await guard.canActivate(contextFor(PublicController.prototype.page, { ip: '10.0.0.1' }));
    expect(hits).toEqual([{ id: 'ip:10.0.0.1', windows: [{ name: 'second', seconds: 1, limit: 7 }] }]);
  });

  it('counts IPv6 clients per /64', async () => {
    await guard.canActivate(contextFor(PublicController.prototype.page, { ip: '2001:db8:1:2:aaaa::1' }));
    await guard.canActivate(contextFor(PublicController.prototype.page, { ip: '2001:db8:1:2:bbbb::9' }));
    expect(hits[0].id).toBe(hits[1].id);
  });

  it('does not count routes marked @SkipRateLimit()', async () => {
    await expect(guard.canActivate(contextFor(PublicController.prototype.health, { ip: '10.0.0.1' }))).resolves.toBe(true);
    expect(hits).toEqual([]);
  });
});
