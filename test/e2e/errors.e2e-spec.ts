import { call, type Json, type Problem } from '../helpers/app';
import { useApp } from '../helpers/use-app';

describe('Errors: problem+json for every case of the error table', () => {
  const suite = useApp();

  const expectProblem = (res: { status: number; headers: Record<string, unknown>; body: Json }, status: number, code: string): void => {
    const body = res.body as Problem;
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(body).toMatchObject({ type: 'about:blank', status, code });
    expect(typeof body.title).toBe('string');
    expect(body.requestId).toBe(res.headers['x-request-id']);
  };

  it('400 invalid_json when the body does not parse', async () => {
    const res = await call(suite.app, 'POST', '/api/v1/settings/practice', {
      key: suite.tenant.testKey,
      rawBody: '{"a": ',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400, 'invalid_json');
  });

  it('400 validation_failed names every bad field with a dotted path, unknown properties included', async () => {
    const res = await suite.api().post<Problem>('/api/v1/settings/portal-access-keys', {
      role: 'GOD',
      scopes: ['patients:read', 'nope'],
      expiresAt: 'tomorrow',
      color: 'blue',
    });
    expectProblem(res, 400, 'validation_failed');
    const fields = res.body.errors!.map((e) => e.field).sort();
    expect(fields).toEqual(['color', 'expiresAt', 'name', 'role', 'scopes']);
    expect(res.body.errors!.find((e) => e.field === 'color')!.message).toBe('is not a known property');
  });

  it('400 validation_failed for a bad query value', async () => {
    const res = await suite.api().get<Problem>('/api/v1/settings/portal-access-keys?limit=500');
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([expect.objectContaining({ field: 'limit' })]);
  });

  it('400 validation_failed for a cursor the API did not issue', async () => {
    const res = await suite.api().get<Problem>('/api/v1/settings/portal-access-keys?cursor=garbage');
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([{ field: 'cursor', message: 'is not a cursor this API issued' }]);
  });

  it('400 validation_failed for a body nested deeper than the global bound', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const res = await suite.api().post('/api/v1/settings/practice', deep);
    expectProblem(res, 400, 'validation_failed');
  });

  it('404 not_found for an unknown route, with or without a key', async () => {
    expectProblem(await call(suite.app, 'GET', '/api/v1/no-such-thing'), 404, 'not_found');
    expectProblem(await suite.api().get('/api/v1/no-such-thing'), 404, 'not_found');
    expectProblem(await call(suite.app, 'GET', '/nothing-here'), 404, 'not_found');
  });

  it('404 not_found (never 500) for a malformed id in a path', async () => {
    expectProblem(await suite.api().delete('/api/v1/settings/portal-access-keys/not-a-uuid'), 404, 'not_found');
    expectProblem(await suite.api().delete("/api/v1/settings/portal-access-keys/1'%20OR%201=1"), 404, 'not_found');
  });

  it('404 not_found for an unknown settings section', async () => {
    expectProblem(await suite.api().get('/api/v1/settings/billing'), 404, 'not_found');
  });

  it('413 payload_too_large for a body over 1 MiB', async () => {
    const res = await suite.api().post('/api/v1/settings/practice', { blob: 'x'.repeat(1024 * 1024 + 10) });
    expectProblem(res, 413, 'payload_too_large');
  });

  it('415 unsupported_media_type for a body that is not JSON', async () => {
    const res = await call(suite.app, 'POST', '/api/v1/settings/practice', {
      key: suite.tenant.testKey,
      rawBody: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectProblem(res, 415, 'unsupported_media_type');
    const text = await call(suite.app, 'POST', '/api/v1/settings/practice', {
      key: suite.tenant.testKey,
      rawBody: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expectProblem(text, 415, 'unsupported_media_type');
  });

  it('echoes a sane X-Request-Id and replaces an insane one', async () => {
    const mine = await call(suite.app, 'GET', '/health/live', { headers: { 'x-request-id': 'trace-abc.123' } });
    expect(mine.headers['x-request-id']).toBe('trace-abc.123');
    const insane = await call(suite.app, 'GET', '/health/live', { headers: { 'x-request-id': 'bad id with spaces <script>' } });
    expect(insane.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const none = await call(suite.app, 'GET', '/health/live');
    expect(none.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
