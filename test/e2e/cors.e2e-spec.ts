import type { LightMyRequestResponse } from 'fastify';
import { call, type Problem, startApp } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { NO_RATE_LIMITS } from '../helpers/patients';
import { createProvider, createScheduler, everyDay } from '../helpers/scheduling';

const LISTED = 'https://portal.clinic.example';
const OTHER = 'https://www.practice.example';

const corsHeaders = (res: { headers: Record<string, unknown> }): string[] =>
  Object.keys(res.headers).filter((name) => name.startsWith('access-control-'));

/**
 * Browsers (docs/operations.md, CORS): public routes answer preflights and allow any origin without credentials;
 * keyed routes send CORS headers only to an origin CORS_ORIGINS lists; Swagger UI's page works over plain
 * http (no upgrade-insecure-requests, HSTS only when PUBLIC_URL is https). The browser's side of the same
 * rules is in browser.e2e-spec.ts.
 */
describe('CORS and the security headers browsers act on', () => {
  let schedulerId: string;
  let address = 0;
  /** Each test's requests come from an address of their own, so per-IP counts do not mix. */
  const nextAddress = (): string => `198.51.100.${++address}`;

  const preflight = (url: string, origin: string, method: string, headers = 'content-type', remoteAddress = nextAddress()) =>
    suite.app.inject({
      method: 'OPTIONS',
      url,
      remoteAddress,
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
    });
  const json = (res: LightMyRequestResponse): Problem => JSON.parse(res.body) as Problem;
  const cspDirective = (headers: Record<string, unknown>, name: string): string | undefined =>
    String(headers['content-security-policy'])
      .split(';')
      .find((directive) => directive.startsWith(`${name} `));

  const suite = useApp({
    ...NO_RATE_LIMITS,
    RATE_LIMIT_IP_PER_SECOND: '3',
    RATE_LIMIT_IP_PER_HOUR: '0',
    WORKERS: 'off',
    CORS_ORIGINS: LISTED,
  });
  beforeAll(async () => {
    const provider = await createProvider(suite.app, suite.tenant.testKey, { timezone: 'UTC', workingHours: everyDay('09:00', '17:00') });
    schedulerId = (await createScheduler(suite.app, suite.tenant.testKey, [provider.id])).id;
  });

  it('public routes answer a preflight from any origin: no credentials, the request headers a page sends, cached an hour', async () => {
    for (const [path, method] of [
      [`/api/v1/public/schedulers/${schedulerId}/book`, 'POST'],
      [`/api/v1/public/schedulers/${schedulerId}/availability`, 'GET'],
      [`/api/v1/public/schedulers/${schedulerId}`, 'GET'],
    ]) {
      const res = await preflight(path, OTHER, method);
      expect([path, res.statusCode]).toEqual([path, 200]);
      expect(res.headers).toMatchObject({
        'access-control-allow-origin': '*',
        'access-control-allow-methods': 'GET, HEAD, POST',
        'access-control-allow-headers': 'Content-Type, X-Request-Id',
        'access-control-max-age': '3600',
        'cross-origin-resource-policy': 'cross-origin',
      });
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      // Counted per client IP like any request without a key: the rate-limit fields are there.
      expect(res.headers['x-ratelimit-limit']).toBe('3');
    }
  });

  it('public answers, errors included, allow any origin and expose the headers a page needs; CORP does not block them', async () => {
    const from = nextAddress();
    const page = await call(suite.app, 'GET', `/api/v1/public/schedulers/${schedulerId}`, {
      headers: { origin: OTHER },
      remoteAddress: from,
    });
    expect(page.status).toBe(200);
    expect(page.headers).toMatchObject({ 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' });
    expect(String(page.headers['access-control-expose-headers'])).toContain('Retry-After');
    expect(String(page.headers['access-control-expose-headers'])).toContain('X-Request-Id');
    const bad = await call<Problem>(suite.app, 'POST', `/api/v1/public/schedulers/${schedulerId}/book`, {
      body: { firstName: 'Ada' },
      headers: { origin: OTHER },
      remoteAddress: from,
    });
    expect([bad.status, bad.body.code, bad.headers['access-control-allow-origin']]).toEqual([400, 'validation_failed', '*']);
    const unknown = await call<Problem>(suite.app, 'GET', '/api/v1/public/schedulers/00000000-0000-4000-8000-000000000000', {
      headers: { origin: OTHER },
      remoteAddress: from,
    });
    expect([unknown.status, unknown.body.code, unknown.headers['access-control-allow-origin']]).toEqual([404, 'not_found', '*']);
  });

  it('keyed routes send no CORS headers to an origin CORS_ORIGINS does not list, and refuse its preflight with a 404', async () => {
    const res = await call(suite.app, 'GET', '/api/v1/me', { key: suite.tenant.testKey, headers: { origin: OTHER } });
    expect(res.status).toBe(200);
    expect(corsHeaders(res)).toEqual([]);
    expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
    const refused = await preflight('/api/v1/me', OTHER, 'GET', 'authorization');
    expect([refused.statusCode, refused.headers['content-type'], json(refused).code]).toEqual([
      404,
      'application/problem+json; charset=utf-8',
      'not_found',
    ]);
    expect(corsHeaders(refused)).toEqual([]);
  });

  it('keyed routes allow an origin that CORS_ORIGINS lists: its own origin echoed, Authorization allowed, no credentials', async () => {
    const pre = await preflight('/api/v1/patients', LISTED, 'POST', 'authorization, content-type, idempotency-key');
    expect(pre.statusCode).toBe(200);
    expect(pre.headers).toMatchObject({
      'access-control-allow-origin': LISTED,
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE',
      'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key, If-Match, X-Request-Id',
    });
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();
    expect(String(pre.headers.vary)).toContain('Origin');
    const res = await call(suite.app, 'GET', '/api/v1/me', { key: suite.tenant.testKey, headers: { origin: LISTED } });
    expect([res.status, res.headers['access-control-allow-origin']]).toEqual([200, LISTED]);
    expect(String(res.headers['access-control-expose-headers'])).toContain('ETag');
  });

  it('a preflight for a route that does not exist, or an OPTIONS request that is no preflight, is a 404 problem', async () => {
    for (const [url, origin, method] of [
      ['/api/v1/public/nothing-here', OTHER, 'GET'],
      [`/api/v1/public/schedulers/${schedulerId}/book`, OTHER, 'DELETE'],
      ['/api/v1/nothing-here', LISTED, 'GET'],
    ]) {
      const res = await preflight(url, origin, method);
      expect([url, method, res.statusCode, json(res).code]).toEqual([url, method, 404, 'not_found']);
      expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(corsHeaders(res)).toEqual([]);
    }
    const bare = await suite.app.inject({
      method: 'OPTIONS',
      url: `/api/v1/public/schedulers/${schedulerId}`,
      remoteAddress: nextAddress(),
    });
    expect([bare.statusCode, json(bare).code]).toEqual([404, 'not_found']);
  });

  it('counts preflights against the client IP: over the limit one is a 429 problem', async () => {
    const from = nextAddress();
    const url = `/api/v1/public/schedulers/${schedulerId}/book`;
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await preflight(url, OTHER, 'POST', 'content-type', from)).statusCode);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await preflight(url, OTHER, 'POST', 'content-type', from);
    expect([refused.statusCode, json(refused).code, Number(refused.headers['retry-after'])]).toEqual([429, 'rate_limited', 1]);
  });

  it('lets Swagger UI load over plain http: no upgrade-insecure-requests, no HSTS while PUBLIC_URL is http', async () => {
    for (const url of ['/api/docs', '/api/v1/me', `/api/v1/public/schedulers/${schedulerId}`]) {
      const res = await call(suite.app, 'GET', url);
      expect([url, String(res.headers['content-security-policy'])]).toEqual([url, expect.stringContaining("default-src 'self'")]);
      expect([url, String(res.headers['content-security-policy'])]).toEqual([
        url,
        expect.not.stringContaining('upgrade-insecure-requests'),
      ]);
      expect([url, res.headers['strict-transport-security']]).toEqual([url, undefined]);
      expect([url, res.headers['x-content-type-options']]).toEqual([url, 'nosniff']);
      // PUBLIC_URL unset: Swagger UI calls the origin it was loaded from, whatever its name.
      expect([url, cspDirective(res.headers, 'connect-src')]).toEqual([url, "connect-src 'self'"]);
    }
  });

  it('sends HSTS when PUBLIC_URL is https, and lets pages call PUBLIC_URL besides their own origin', async () => {
    const secure = await startApp({ WORKERS: 'off', PUBLIC_URL: 'https://api.clinic.example/' });
    try {
      const res = await call(secure, 'GET', '/health/live');
      expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(res.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
      expect(cspDirective(res.headers, 'connect-src')).toBe("connect-src 'self' https://api.clinic.example");
    } finally {
      await secure.close();
    }
  });
});
