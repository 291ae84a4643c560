import { client, createKey, createTenant, type Problem, startApp, type TestResponse } from '../helpers/app';
import type { ApiKeyListDto, CreatedApiKeyDto } from '../../src/modules/api-keys/dto/api-key.dto';
import type { MeDto } from '../../src/modules/api-keys/dto/me.dto';
import { useApp } from '../helpers/use-app';
import { clock } from '../../src/common/time/clock';

const KEYS = '/api/v1/settings/portal-access-keys';

describe('API keys: create, list, revoke, /me', () => {
  const suite = useApp();

  it('creates a key shown once, with the caller mode, and never lists the secret', async () => {
    const res = await suite.api().post<CreatedApiKeyDto>(KEYS, {
      name: 'Zapier',
      description: 'sync',
      role: 'ADMIN',
      scopes: ['patients:read'],
    });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${KEYS}/${res.body.id}`);
    expect(res.body).toMatchObject({
      name: 'Zapier',
      description: 'sync',
      mode: 'test',
      role: 'ADMIN',
      scopes: ['patients:read'],
      revokedAt: null,
    });
    expect(res.body.key).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(res.body.prefix).toBe(res.body.key.slice(0, 12));
    expect(res.body.last4).toBe(res.body.key.slice(-4));

    const list = await suite.api().get<ApiKeyListDto>(KEYS);
    expect(list.status).toBe(200);
    const listed = list.body.keys.find((k) => k.id === res.body.id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('key');
    expect(JSON.stringify(list.body)).not.toContain(res.body.key);

    const me = await client(suite.app, res.body.key).get<MeDto>('/api/v1/me');
    expect(me.status).toBe(200);
    expect(me.body.tenant).toEqual({ id: suite.tenant.id, name: suite.tenant.name });
    expect(me.body.key).toMatchObject({
      id: res.body.id,
      name: 'Zapier',
      mode: 'test',
      role: 'ADMIN',
      scopes: ['patients:read'],
      expiresAt: null,
    });
    expect(Array.isArray(me.body.rateLimits)).toBe(true);
  });

  it('a live key creates live keys', async () => {
    const res = await suite.api(suite.tenant.liveKey).post<CreatedApiKeyDto>(KEYS, { name: 'live one' });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^sk_live_/);
    expect(res.body.mode).toBe('live');
  });

  it('inherits the caller role and scopes by default', async () => {
    const scoped = await createKey(suite.app, suite.tenant.testKey, { role: 'ADMIN', scopes: ['settings:read', 'settings:write'] });
    const res = await client(suite.app, scoped).post<CreatedApiKeyDto>(KEYS, { name: 'child' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ role: 'ADMIN', scopes: ['settings:read', 'settings:write'] });
  });

  describe('no escalation', () => {
    it('an ADMIN key cannot create an OWNER key', async () => {
      const admin = await createKey(suite.app, suite.tenant.testKey, { role: 'ADMIN' });
      const res = await client(suite.app, admin).post<Problem>(KEYS, { name: 'x', role: 'OWNER' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_role');
    });

    it('a scoped key cannot create a key with every scope', async () => {
      const scoped = await createKey(suite.app, suite.tenant.testKey, { scopes: ['settings:read', 'settings:write'] });
      const res = await client(suite.app, scoped).post<Problem>(KEYS, { name: 'x', scopes: null });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
    });

    it('a scoped key cannot grant a scope it does not hold', async () => {
      const scoped = await createKey(suite.app, suite.tenant.testKey, { scopes: ['settings:read', 'settings:write'] });
      const res = await client(suite.app, scoped).post<Problem>(KEYS, { name: 'x', scopes: ['settings:read', 'patients:write'] });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ code: 'insufficient_scope' });
      expect(res.body.detail).toContain('patients:write');
    });

    it('a key with an expiry cannot create a key that outlives it', async () => {
      const soon = new Date(clock.nowMs() + 3600_000).toISOString();
      const expiring = await createKey(suite.app, suite.tenant.testKey, { expiresAt: soon });
      const later = await client(suite.app, expiring).post<Problem>(KEYS, {
        name: 'x',
        expiresAt: new Date(clock.nowMs() + 7200_000).toISOString(),
      });
      expect(later.status).toBe(400);
      expect(later.body.errors![0].field).toBe('expiresAt');
      const inherited = await client(suite.app, expiring).post<CreatedApiKeyDto>(KEYS, { name: 'y' });
      expect(inherited.status).toBe(201);
      expect(inherited.body.expiresAt).toBe(soon);
    });

    it('rejects an expiry in the past', async () => {
      const res = await suite.api().post<Problem>(KEYS, { name: 'x', expiresAt: new Date(clock.nowMs() - 86_400_000).toISOString() });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'expiresAt', message: 'must be in the future' }]);
    });

    it('STAFF keys cannot manage keys at all', async () => {
      const staff = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF' });
      expect((await client(suite.app, staff).get<Problem>(KEYS)).body.code).toBe('insufficient_role');
      expect((await client(suite.app, staff).post<Problem>(KEYS, { name: 'x' })).body.code).toBe('insufficient_role');
    });

    it('an ADMIN key cannot revoke an OWNER key', async () => {
      const admin = await createKey(suite.app, suite.tenant.testKey, { role: 'ADMIN' });
      const owner = await suite.api().post<CreatedApiKeyDto>(KEYS, { name: 'another owner', role: 'OWNER' });
      const res = await client(suite.app, admin).delete<Problem>(`${KEYS}/${owner.body.id}`);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_role');
      expect((await client(suite.app, owner.body.key).get('/api/v1/me')).status).toBe(200);
    });
  });

  it('revoking answers 204, twice, and marks the record', async () => {
    const created = await suite.api().post<CreatedApiKeyDto>(KEYS, { name: 'bye' });
    expect((await suite.api().delete(`${KEYS}/${created.body.id}`)).status).toBe(204);
    expect((await suite.api().delete(`${KEYS}/${created.body.id}`)).status).toBe(204);
    const list = await suite.api().get<ApiKeyListDto>(KEYS);
    expect(list.body.keys.find((k) => k.id === created.body.id)!.revokedAt).toEqual(expect.any(String));
  });

  it('pages through keys newest first without gaps or duplicates', async () => {
    const other = await createTenant(suite.app);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await client(suite.app, other.testKey).post<CreatedApiKeyDto>(KEYS, { name: `k${i}` })).body.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: TestResponse<ApiKeyListDto> = await client(suite.app, other.testKey).get<ApiKeyListDto>(
        `${KEYS}?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.body.keys.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.keys.map((k) => k.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toHaveLength(6); // 5 + the default test key
    expect(new Set(seen).size).toBe(6);
    expect(seen.slice(0, 5)).toEqual([...ids].reverse());
  });
});

describe('Revocation reaches every API instance', () => {
  it('a key revoked through instance A is refused by instance B on its next request', async () => {
    const a = await startApp();
    const b = await startApp();
    try {
      const tenant = await createTenant(a);
      for (let round = 0; round < 5; round++) {
        const created = await client(a, tenant.testKey).post<CreatedApiKeyDto>(KEYS, { name: `shared ${round}` });
        // B verifies the key and then serves it from its cache
        expect((await client(b, created.body.key).get('/api/v1/settings/practice')).status).toBe(200);
        expect((await client(b, created.body.key).get('/api/v1/settings/practice')).status).toBe(200);
        expect((await client(a, tenant.testKey).delete(`${KEYS}/${created.body.id}`)).status).toBe(204);
        const res = await client(b, created.body.key).get<Problem>('/api/v1/settings/practice');
        expect([round, res.status, res.body.code]).toEqual([round, 401, 'invalid_api_key']);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});
