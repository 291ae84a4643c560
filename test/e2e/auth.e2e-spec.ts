import { hashApiKey } from '../../src/common/auth/api-key-secret';
import { call, client, createKey, dataSource, type Problem, startApp } from '../helpers/app';
import type { MeDto } from '../../src/modules/api-keys/dto/me.dto';
import { useApp } from '../helpers/use-app';

import { clock } from '../../src/common/time/clock';

describe('Authentication and authorisation (ApiKeyGuard, ScopeGuard, RoleGuard)', () => {
  const suite = useApp();

  const practice = '/api/v1/settings/practice';

  it('answers 401 missing_api_key with WWW-Authenticate when no Authorization header is sent', async () => {
    const res = await call<Problem>(suite.app, 'GET', practice);
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.body).toMatchObject({ type: 'about:blank', status: 401, code: 'missing_api_key' });
    expect(res.body.requestId).toBe(res.headers['x-request-id']);
  });

  it('answers 401 missing_api_key for a non-Bearer Authorization header', async () => {
    const res = await call<Problem>(suite.app, 'GET', practice, {
      headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
    });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('missing_api_key');
  });

  it.each([
    ['not a key', 'Bearer hello'],
    ['a wrong prefix', `Bearer sk_prod_${'a'.repeat(40)}`],
    ['a too short secret', `Bearer sk_test_${'a'.repeat(20)}`],
    ['non-base62 characters', `Bearer sk_test_${'a'.repeat(39)}!`],
  ])('answers 401 invalid_api_key for a malformed key (%s)', async (_label, header) => {
    const res = await call<Problem>(suite.app, 'GET', practice, { headers: { authorization: header } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_api_key');
    expect(res.headers['www-authenticate']).toBe('Bearer');
  });

  it('answers 401 invalid_api_key for a well-formed key that does not exist', async () => {
    const res = await call<Problem>(suite.app, 'GET', practice, { key: `sk_test_${'Z'.repeat(40)}` });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_api_key');
  });

  it('accepts a valid key', async () => {
    const res = await suite.api().get(practice);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ settings: {}, updatedAt: null });
  });

  it('refuses a revoked key on the very next request', async () => {
    const key = await createKey(suite.app, suite.tenant.testKey, { name: 'to revoke' });
    expect((await client(suite.app, key).get(practice)).status).toBe(200); // now cached
    const me = await client(suite.app, key).get<MeDto>('/api/v1/me');
    const del = await suite.api().delete(`/api/v1/settings/portal-access-keys/${me.body.key.id}`);
    expect(del.status).toBe(204);
    const res = await client(suite.app, key).get<Problem>(practice);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_api_key');
  });

  it('refuses an expired key, even one that was cached while it was valid', async () => {
    const key = await createKey(suite.app, suite.tenant.testKey, {
      name: 'short-lived',
      expiresAt: new Date(clock.nowMs() + 1500).toISOString(),
    });
    expect((await client(suite.app, key).get(practice)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    const res = await client(suite.app, key).get<Problem>(practice);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'invalid_api_key', detail: 'The API key has expired' });
  });

  it('answers 403 insufficient_scope naming the scope when the key lacks it', async () => {
    const key = await createKey(suite.app, suite.tenant.testKey, { scopes: ['patients:read'] });
    const res = await client(suite.app, key).get<Problem>(practice);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    expect(res.body.detail).toContain('settings:read');
  });

  it('answers 403 insufficient_role naming the roles when the role is too low', async () => {
    const key = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF' });
    expect((await client(suite.app, key).get(practice)).status).toBe(200);
    const res = await client(suite.app, key).post<Problem>(practice, { a: 1 });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_role');
    expect(res.body.detail).toContain('OWNER or ADMIN');
  });

  it('checks the scope before the role', async () => {
    const key = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF', scopes: ['patients:read'] });
    const res = await client(suite.app, key).post<Problem>(practice, { a: 1 });
    expect(res.body.code).toBe('insufficient_scope');
  });

  it('records last use without a write per request', async () => {
    const key = await createKey(suite.app, suite.tenant.testKey, { name: 'used' });
    const lastUsed = async (): Promise<Date | null> => {
      const sql = `SELECT last_used_at FROM api_keys WHERE key_hash = $1`;
      const [row] = await dataSource(suite.app).query<{ last_used_at: Date | null }[]>(sql, [hashApiKey(key)]);
      return row.last_used_at;
    };
    // The key is used through an app of its own, so that shutting that app down leaves the suite's running.
    const own = await startApp();
    try {
      await client(own, key).get(practice);
      expect(await lastUsed()).toBeNull();
    } finally {
      await own.close(); // a graceful shutdown flushes the buffer
    }
    expect(await lastUsed()).toBeInstanceOf(Date);
  });
});
