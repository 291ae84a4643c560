import { createTenant, dataSource, type Problem, TestTenant } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { clock } from '../../src/common/time/clock';

const KEYS = '/api/v1/settings/portal-access-keys';

/** A mode keeps at least one active OWNER key: revoking the last one is 409 last_owner_key. */
describe("API keys: a mode's last active OWNER key cannot be revoked", () => {
  const suite = useApp();

  const idOf = async (key: string): Promise<string> => (await suite.api(key).get<{ key: { id: string } }>('/api/v1/me')).body.key.id;
  const createOwner = async (callerKey: string): Promise<{ id: string; key: string }> => {
    const res = await suite.api(callerKey).post<{ id: string; key: string }>(KEYS, { name: 'second owner', role: 'OWNER' });
    expect(res.status).toBe(201);
    return { id: res.body.id, key: res.body.key };
  };
  const activeOwners = async (tenant: TestTenant, mode: string): Promise<number> => {
    const [{ n }] = await dataSource(suite.app).query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM api_keys WHERE tenant_id = $1 AND mode = $2 AND role = 'OWNER' AND revoked_at IS NULL`,
      [tenant.id, mode],
    );
    return n;
  };

  it('answers 409 last_owner_key for the only OWNER key of a mode, which keeps working', async () => {
    const tenant = await createTenant(suite.app);
    const res = await suite.api(tenant.testKey).delete(`${KEYS}/${await idOf(tenant.testKey)}`);
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 409, code: 'last_owner_key' });
    expect((await suite.api(tenant.testKey).get(KEYS)).status).toBe(200);
    // The other mode's OWNER key does not count: each mode needs its own.
    expect((await suite.api(tenant.liveKey).delete<Problem>(`${KEYS}/${await idOf(tenant.liveKey)}`)).body.code).toBe('last_owner_key');
  });

  it('revokes an OWNER key while another stays, then refuses the last; ADMIN keys are not affected', async () => {
    const tenant = await createTenant(suite.app);
    const second = await createOwner(tenant.testKey);
    const admin = await suite.api(tenant.testKey).post<{ id: string }>(KEYS, { name: 'admin', role: 'ADMIN' });
    expect((await suite.api(second.key).delete(`${KEYS}/${await idOf(tenant.testKey)}`)).status).toBe(204);
    expect((await suite.api(second.key).delete<Problem>(`${KEYS}/${second.id}`)).body.code).toBe('last_owner_key');
    expect((await suite.api(second.key).delete(`${KEYS}/${admin.body.id}`)).status).toBe(204);
    expect(await activeOwners(tenant, 'test')).toBe(1);
  });

  it('does not count an expired OWNER key as a way in', async () => {
    const tenant = await createTenant(suite.app);
    const second = await createOwner(tenant.testKey);
    await dataSource(suite.app).query(`UPDATE api_keys SET expires_at = $2::timestamptz - interval '1 minute' WHERE id = $1`, [
      second.id,
      clock.now(),
    ]);
    const res = await suite.api(tenant.testKey).delete<Problem>(`${KEYS}/${await idOf(tenant.testKey)}`);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('last_owner_key');
  });

  it('never leaves a mode without an OWNER key when its last two are revoked concurrently', async () => {
    for (let round = 0; round < 8; round++) {
      const tenant = await createTenant(suite.app);
      const first = { id: await idOf(tenant.testKey), key: tenant.testKey };
      const second = await createOwner(tenant.testKey);
      // Each key revokes the other, at the same time.
      const [a, b] = await Promise.all([
        suite.api(first.key).delete(`${KEYS}/${second.id}`),
        suite.api(second.key).delete(`${KEYS}/${first.id}`),
      ]);
      const statuses = [a.status, b.status].sort();
      // One wins; the other is 409, or 401 when its own key was the one revoked before it was verified.
      expect(statuses[0]).toBe(204);
      expect([401, 409]).toContain(statuses[1]);
      expect(await activeOwners(tenant, 'test')).toBe(1);
    }
  });
});
