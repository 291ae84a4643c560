import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getStorageToken, ThrottlerStorage } from '@nestjs/throttler';
import { RedisService } from '../../src/common/redis/redis.service';
import { call, client, createTenant, startApp, type Problem } from '../helpers/app';
import type { MeDto } from '../../src/modules/api-keys/dto/me.dto';

import { eventually } from '../helpers/eventually';
import { PrivateRedis } from '../helpers/redis-server';
import { useApp } from '../helpers/use-app';

/** All windows off (0 = no limit) unless set: each test states exactly the limits it exercises. */
const NO_LIMITS: Record<string, string> = Object.fromEntries(
  ['TEST', 'LIVE', 'IP'].flatMap((m) => ['SECOND', 'HOUR', 'DAY'].map((w) => [`RATE_LIMIT_${m}_PER_${w}`, '0'])),
);
delete NO_LIMITS.RATE_LIMIT_IP_PER_DAY; // no such variable

/** Its own Redis prefix, so that no other suite's traffic from 127.0.0.1 counts here. */
const PREFIX = `${process.env.REDIS_PREFIX}:rl`;

/** The variables of an app with these limits (and `extra`), on this suite's prefix. */
function limitedEnv(limits: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  return { ...NO_LIMITS, ...limits, REDIS_PREFIX: PREFIX, WORKERS: 'off', ...extra };
}

function limited(limits: Record<string, string>, extra: Record<string, string> = {}): Promise<NestFastifyApplication> {
  return startApp(limitedEnv(limits, extra));
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Waits until the wall clock is `ms` into a second (Redis runs on this host: one clock). */
async function untilMillisecond(ms: number): Promise<void> {
  const wait = (ms - (Date.now() % 1000) + 1000) % 1000;
  await sleep(wait);
}

const practice = '/api/v1/settings/practice';

describe('Rate limits (sliding window per key and per IP)', () => {
  const apps: NestFastifyApplication[] = [];
  const start = async (limits: Record<string, string>, extra: Record<string, string> = {}): Promise<NestFastifyApplication> => {
    const app = await limited(limits, extra);
    apps.push(app);
    return app;
  };
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  describe('headers', () => {
    const suite = useApp(
      limitedEnv({
        RATE_LIMIT_TEST_PER_SECOND: '10',
        RATE_LIMIT_TEST_PER_HOUR: '100',
        RATE_LIMIT_TEST_PER_DAY: '1000',
        RATE_LIMIT_IP_PER_SECOND: '20',
        RATE_LIMIT_IP_PER_HOUR: '1000',
      }),
    );

    it('sends X-RateLimit-* and the IETF RateLimit fields on a success, for the tightest window', async () => {
      const before = Math.floor(Date.now() / 1000);
      const res = await suite.api().get(practice);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('10');
      expect(res.headers['x-ratelimit-remaining']).toBe('9');
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(before + 1);
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 1);
      expect(res.headers['ratelimit-policy']).toBe('"second";q=10;w=1, "hour";q=100;w=3600, "day";q=1000;w=86400');
      expect(res.headers.ratelimit).toBe('"second";r=9;t=1');
    });

    it('sends them on 403 and 404 answers too (the request was counted)', async () => {
      const key = await (async () => {
        const res = await suite.api().post<{ key: string }>('/api/v1/settings/portal-access-keys', {
          name: 'narrow',
          scopes: ['patients:read'],
        });
        return res.body.key;
      })();
      const forbidden = await client(suite.app, key).get(practice);
      expect(forbidden.status).toBe(403);
      expect(forbidden.headers['x-ratelimit-remaining']).toBe('9');
      expect(forbidden.headers.ratelimit).toBe('"second";r=9;t=1');

      const missing = await suite.api().get('/api/v1/settings/no-such-section');
      expect(missing.status).toBe(404);
      expect(missing.headers['x-ratelimit-limit']).toBe('10');
      expect(missing.headers['ratelimit-policy']).toContain('"hour";q=100;w=3600');
    });

    it('sends the per-IP fields on a 401 (no valid key: counted against the IP)', async () => {
      const res = await call(suite.app, 'GET', practice, { remoteAddress: '10.9.0.1' });
      expect(res.status).toBe(401);
      expect(res.headers['x-ratelimit-limit']).toBe('20');
      expect(res.headers['x-ratelimit-remaining']).toBe('19');
      expect(res.headers['ratelimit-policy']).toBe('"second";q=20;w=1, "hour";q=1000;w=3600');
    });

    it('reports the hour window once it is the tightest', async () => {
      const other = await start({ RATE_LIMIT_TEST_PER_SECOND: '10', RATE_LIMIT_TEST_PER_HOUR: '12' });
      const c = client(other, (await createTenant(other)).testKey);
      let last = await c.get(practice);
      for (let i = 0; i < 2; i++) last = await c.get(practice);
      expect(last.headers.ratelimit).toBe('"second";r=7;t=1'); // second: 7 of 10 left; hour: 9 of 12
      await sleep(1050); // the second window empties; the hour window still holds 3
      const res = await c.get(practice);
      expect(res.headers['x-ratelimit-limit']).toBe('12');
      expect(res.headers['x-ratelimit-remaining']).toBe('8');
      expect(res.headers.ratelimit).toMatch(/^"hour";r=8;t=(3599|3600)$/);
      const reset = Number(res.headers['x-ratelimit-reset']);
      expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 3597);
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 3600);
    });

    it('does not limit or annotate health checks and metrics', async () => {
      for (const url of ['/health/live', '/metrics']) {
        const res = await call(suite.app, 'GET', url);
        expect(res.status).toBe(200);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined();
        expect(res.headers.ratelimit).toBeUndefined();
      }
    });

    it('reports the budget on GET /me without consuming any', async () => {
      const other = await createTenant(suite.app);
      const c = client(suite.app, other.liveKey);
      const first = await c.get<MeDto>('/api/v1/me');
      expect(first.body.rateLimits).toEqual([]); // live mode has no window in this app
      const me1 = await client(suite.app, other.testKey).get<MeDto>('/api/v1/me');
      const me2 = await client(suite.app, other.testKey).get<MeDto>('/api/v1/me');
      const hour = (b: MeDto) => b.rateLimits.find((w) => w.window === 'hour')!;
      expect(hour(me1.body)).toMatchObject({ window: 'hour', limit: 100, remaining: 99 });
      expect(hour(me2.body).remaining).toBe(98); // one per request: reading the budget counts nothing
      expect(me2.body.rateLimits.map((w) => w.window)).toEqual(['second', 'hour', 'day']);
      const reset = hour(me2.body).reset;
      expect(reset).toBeGreaterThan(Date.now() / 1000 + 3590);
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 3600);
    });
  });

  describe('the exact boundary of each window', () => {
    const cases: [string, string, number, string][] = [
      ['second', 'PER_SECOND', 3, 'per second'],
      ['hour', 'PER_HOUR', 5, 'per hour'],
      ['day', 'PER_DAY', 4, 'per day'],
    ];
    it.each(cases)('refuses request %s-limit + 1 for test and live keys alike', async (window, variable, limit, words) => {
      const app = await start({ [`RATE_LIMIT_TEST_${variable}`]: String(limit), [`RATE_LIMIT_LIVE_${variable}`]: String(limit) });
      const tenant = await createTenant(app);
      for (const key of [tenant.testKey, tenant.liveKey]) {
        const c = client(app, key);
        for (let i = 1; i <= limit; i++) {
          const ok = await c.get(practice);
          expect(ok.status).toBe(200);
          expect(ok.headers['x-ratelimit-remaining']).toBe(String(limit - i));
          expect(ok.headers['ratelimit-policy']).toBe(`"${window}";q=${limit};w=${{ second: 1, hour: 3600, day: 86400 }[window]}`);
        }
        const refused = await c.get<Problem>(practice);
        expect(refused.status).toBe(429);
        expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(refused.body).toMatchObject({ status: 429, code: 'rate_limited', window, limit });
        expect(refused.body.detail).toContain(`${limit} requests ${words}`);
        const retryAfter = Number(refused.headers['retry-after']);
        const windowSeconds = { second: 1, hour: 3600, day: 86400 }[window]!;
        expect(retryAfter).toBeGreaterThanOrEqual(Math.max(1, windowSeconds - 2));
        expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
        expect(refused.headers['x-ratelimit-remaining']).toBe('0');
        expect(refused.headers.ratelimit).toBe(`"${window}";r=0;t=${retryAfter}`);
      }
    });
  });

  it('Retry-After is truthful: one request succeeds right after it', async () => {
    const app = await start({ RATE_LIMIT_TEST_PER_SECOND: '3' });
    const c = client(app, (await createTenant(app)).testKey);
    for (let i = 0; i < 3; i++) expect((await c.get(practice)).status).toBe(200);
    const refused = await c.get(practice);
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBe(1);
    await sleep(retryAfter * 1000);
    expect((await c.get(practice)).status).toBe(200);
  });

  it('a refused request uses no quota in any window', async () => {
    const app = await start({ RATE_LIMIT_TEST_PER_SECOND: '3', RATE_LIMIT_TEST_PER_HOUR: '5' });
    const c = client(app, (await createTenant(app)).testKey);
    for (let i = 0; i < 3; i++) expect((await c.get(practice)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await c.get(practice)).status).toBe(429); // refused by the second window
    await sleep(1050);
    // Had the four refusals counted in the hour window, it would be full (3 + 4 > 5).
    const a = await c.get(practice);
    const b = await c.get(practice);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.ratelimit).toMatch(/^"hour";r=0;t=(3599|3600)$/);
    const refused = await c.get<Problem & { window: string }>(practice);
    expect(refused.status).toBe(429);
    expect(refused.body.window).toBe('hour');
  });

  it('two API instances on one Redis share one budget', async () => {
    const limits = { RATE_LIMIT_LIVE_PER_SECOND: '0', RATE_LIMIT_LIVE_PER_HOUR: '6' };
    const one = await start(limits);
    const two = await start(limits);
    const tenant = await createTenant(one);
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await client(i % 2 ? two : one, tenant.liveKey).get(practice)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
  });

  it('counts concurrent requests exactly (the check and the record are one atomic script)', async () => {
    const app = await start({ RATE_LIMIT_TEST_PER_HOUR: '10' });
    const c = client(app, (await createTenant(app)).testKey);
    const results = await Promise.all(Array.from({ length: 25 }, () => c.get(practice)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(15);
  });

  it('slides: a burst straddling a second boundary is still capped (a fixed window would allow it)', async () => {
    const app = await start({ RATE_LIMIT_TEST_PER_SECOND: '3' });
    const c = client(app, (await createTenant(app)).testKey);
    await untilMillisecond(850);
    const first = await Promise.all([c.get(practice), c.get(practice), c.get(practice)]);
    expect(first.map((r) => r.status)).toEqual([200, 200, 200]);
    await untilMillisecond(150); // into the next second, 0.3 s after the first burst
    const second = await Promise.all([c.get(practice), c.get(practice), c.get(practice)]);
    expect(second.map((r) => r.status)).toEqual([429, 429, 429]);
    expect(Number(second[0].headers['retry-after'])).toBe(1);
    await untilMillisecond(950); // one second after the first burst: it has left the window
    expect((await c.get(practice)).status).toBe(200);
  });

  it('limits requests without a valid key per client IP', async () => {
    const app = await start({ RATE_LIMIT_IP_PER_SECOND: '3', RATE_LIMIT_TEST_PER_HOUR: '100' });
    const tenant = await createTenant(app);
    const from = (remoteAddress: string, key?: string) => call(app, 'GET', practice, { remoteAddress, key });
    expect((await from('10.0.0.7')).status).toBe(401);
    expect((await from('10.0.0.7', `sk_test_${'Z'.repeat(40)}`)).status).toBe(401);
    const third = await from('10.0.0.7');
    expect(third.status).toBe(401);
    expect(third.headers['x-ratelimit-remaining']).toBe('0');
    const refused = await from('10.0.0.7');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'rate_limited', window: 'second', limit: 3 });
    expect(refused.headers['retry-after']).toBe('1');
    // another IP has its own budget, and a valid key from the blocked IP is counted against the key
    expect((await from('10.0.0.8')).status).toBe(401);
    const keyed = await from('10.0.0.7', tenant.testKey);
    expect(keyed.status).toBe(200);
    expect(keyed.headers['x-ratelimit-limit']).toBe('100');
  });

  it('counts requests to unknown routes too: against a valid key, else against the client IP', async () => {
    const app = await start({ RATE_LIMIT_IP_PER_SECOND: '2', RATE_LIMIT_TEST_PER_SECOND: '3' });
    const tenant = await createTenant(app);
    const unknown = '/api/v1/no-such-route';
    const keyed = (url: string) => call(app, 'GET', url, { remoteAddress: '10.0.1.1', key: tenant.testKey });
    const first = await keyed(unknown);
    expect(first.status).toBe(404);
    expect(first.headers['x-ratelimit-limit']).toBe('3');
    expect(first.headers['x-ratelimit-remaining']).toBe('2');
    expect((await keyed(practice)).headers['x-ratelimit-remaining']).toBe('1'); // one budget for the key
    expect((await keyed(unknown)).headers['x-ratelimit-remaining']).toBe('0');
    const overKey = await keyed(unknown);
    expect(overKey.status).toBe(429);
    expect(overKey.body).toMatchObject({ code: 'rate_limited', window: 'second', limit: 3 });
    expect(Number(overKey.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    const anonymous = (url: string, key?: string) => call(app, 'GET', url, { remoteAddress: '10.0.1.2', key });
    const anon = await anonymous(unknown);
    expect(anon.status).toBe(404);
    expect(anon.headers['x-ratelimit-limit']).toBe('2');
    const wrongKey = await anonymous('/nothing-here', `sk_test_${'Q'.repeat(40)}`); // outside /api/v1 too
    expect(wrongKey.status).toBe(404);
    expect(wrongKey.headers['x-ratelimit-remaining']).toBe('0');
    const overIp = await anonymous(unknown);
    expect(overIp.status).toBe(429);
    expect(overIp.body).toMatchObject({ code: 'rate_limited', limit: 2 });
  });

  it('makes no Redis call when every window of the mode is 0', async () => {
    const app = await start({ RATE_LIMIT_LIVE_PER_SECOND: '1' });
    const tenant = await createTenant(app);
    const c = client(app, tenant.testKey);
    for (let i = 0; i < 5; i++) {
      const res = await c.get(practice);
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      expect(res.headers['ratelimit-policy']).toBeUndefined();
    }
    const me = await c.get<MeDto>('/api/v1/me');
    const redis = app.get(RedisService);
    expect(await redis.client.keys(redis.key('rl', `*${me.body.key.id}*`))).toEqual([]);
  });

  it('keeps one sorted set per key, holding each counted request once whatever the number of windows', async () => {
    const app = await start({ RATE_LIMIT_TEST_PER_SECOND: '10', RATE_LIMIT_TEST_PER_HOUR: '100', RATE_LIMIT_TEST_PER_DAY: '1000' });
    const tenant = await createTenant(app);
    const c = client(app, tenant.testKey);
    for (let i = 0; i < 3; i++) expect((await c.get(practice)).status).toBe(200);
    const me = await c.get<MeDto>('/api/v1/me'); // counted too
    const redis = app.get(RedisService);
    const keys = await redis.client.keys(redis.key('rl', `*${me.body.key.id}*`));
    expect(keys).toHaveLength(1);
    expect(await redis.client.zcard(keys[0])).toBe(4);
    // Kept as long as the longest window (a day) needs it, and no longer.
    const ttl = await redis.client.pttl(keys[0]);
    expect(ttl).toBeGreaterThan(86_400_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(86_400_000);
  });

  it('also serves as the @nestjs/throttler storage (sliding window, one window per call)', async () => {
    const app = await start({});
    const storage = app.get<ThrottlerStorage>(getStorageToken());
    const key = `throttler-${Date.now()}`;
    const a = await storage.increment(key, 1000, 2, 1000, 'default');
    const b = await storage.increment(key, 1000, 2, 1000, 'default');
    const c = await storage.increment(key, 1000, 2, 1000, 'default');
    expect([a.totalHits, a.isBlocked, b.totalHits, b.isBlocked]).toEqual([1, false, 2, false]);
    expect(c).toMatchObject({ totalHits: 3, isBlocked: true, timeToBlockExpire: 1 });
  });

  describe('Redis down', () => {
    let redis: PrivateRedis | undefined;

    afterAll(() => redis?.kill());

    it('counts per instance with the same limits (never unlimited, never 503) and goes back to Redis when it returns', async () => {
      redis = await PrivateRedis.start();
      // Closed here, while its Redis is up: a client whose quit failed would keep reconnecting after the run.
      const app = await limited({ RATE_LIMIT_TEST_PER_SECOND: '3', RATE_LIMIT_IP_PER_SECOND: '2' }, { REDIS_URL: redis.url });
      try {
        const service = app.get(RedisService);
        const c = client(app, (await createTenant(app)).testKey);
        expect((await c.get(practice)).status).toBe(200);

        await redis.kill();
        await eventually(async () => expect(service.client.status).not.toBe('ready'));
        const down = [await c.get(practice), await c.get(practice), await c.get(practice), await c.get(practice)];
        expect(down.map((r) => r.status)).toEqual([200, 200, 200, 429]);
        expect(down[2].headers['x-ratelimit-remaining']).toBe('0');
        expect(down[3].body).toMatchObject({ code: 'rate_limited' });
        expect(Number(down[3].headers['retry-after'])).toBeGreaterThanOrEqual(1);
        // The 401 path is limited per IP, in memory too.
        const anonymous = [await call(app, 'GET', practice), await call(app, 'GET', practice), await call(app, 'GET', practice)];
        expect(anonymous.map((r) => r.status)).toEqual([401, 401, 429]);

        await redis.restart();
        await eventually(async () => expect(service.client.status).toBe('ready'));
        // Counted in Redis again (it came back empty, so the count is this request alone).
        await sleep(1_100);
        const back = await c.get(practice);
        expect(back.status).toBe(200);
        expect(back.headers['x-ratelimit-remaining']).toBe('2');
        expect(await service.client.keys(service.key('rl', 'key:*'))).toHaveLength(1);
      } finally {
        if (redis.running) await app.close();
        else app.get(RedisService).client.disconnect();
      }
    });
  });
});
