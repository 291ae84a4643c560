import { DataSource } from 'typeorm';
import { call, client, createKey, createTenant, type Problem, startApp } from '../helpers/app';
import type { MeDto } from '../../src/modules/api-keys/dto/me.dto';
import type { CreatedApiKeyDto } from '../../src/modules/api-keys/dto/api-key.dto';
import type { AuditEntryDto, AuditLogDto } from '../../src/modules/audit/dto/audit-entry.dto';
import type { PatientDto } from '../../src/modules/patients';
import { useApp } from '../helpers/use-app';
import { eventually } from '../helpers/eventually';
import { createPatient, NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';
import { AuditWriter } from '../../src/modules/audit/audit.writer';

const AUDIT = '/api/v1/settings/audit-log';

describe('Audit log', () => {
  let ownerKeyId: string;

  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off' });

  beforeAll(async () => {
    ownerKeyId = (await suite.api().get<MeDto>('/api/v1/me')).body.key.id;
  });

  /** The entries of a query once the writer has flushed what the requests so far left. */
  const entries = async (key: string, query: string, expected: number): Promise<AuditEntryDto[]> =>
    eventually(async () => {
      await suite.app.get(AuditWriter).flush();
      const res = await client(suite.app, key).get<AuditLogDto>(`${AUDIT}?${query}`);
      expect(res.status).toBe(200);
      expect(res.body.entries).toHaveLength(expected);
      return res.body.entries;
    });

  it('records reads and writes of a patient with the key, action, status, request id and IP, never the data', async () => {
    const created = await suite.api().post<PatientDto>(PATIENTS, {
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'grace@example.com',
    });
    const id = created.body.id;
    const read = await call(suite.app, 'GET', `${PATIENTS}/${id}`, { key: suite.tenant.testKey, remoteAddress: '203.0.113.7' });
    const put = await suite.api().put(`${PATIENTS}/${id}`, { gender: 'female' });
    const bad = await suite.api().put(`${PATIENTS}/${id}`, { email: 'not-an-email' });

    const log = await entries(suite.tenant.testKey, `resourceId=${id}`, 4);
    expect(log.map((e) => [e.action, e.status])).toEqual([
      ['patient.update', 400],
      ['patient.update', 200],
      ['patient.read', 200],
      ['patient.create', 201],
    ]);
    for (const e of log) {
      expect(e).toMatchObject({ apiKeyId: ownerKeyId, resourceType: 'patient', resourceId: id });
      expect(Object.keys(e).sort()).toEqual(['action', 'apiKeyId', 'at', 'id', 'ip', 'requestId', 'resourceId', 'resourceType', 'status']);
    }
    expect(log.map((e) => e.requestId)).toEqual([bad, put, read, created].map((r) => r.headers['x-request-id']));
    expect(log[2].ip).toBe('203.0.113.7');
    expect(JSON.stringify(log)).not.toMatch(/Grace|Hopper|grace@example\.com|female/);
  });

  it("records refusals: a 404 read and a 403 with the refused key's id", async () => {
    const missing = '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b';
    expect((await suite.api().get(`${PATIENTS}/${missing}`)).status).toBe(404);
    const staff = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF' });
    const staffId = (await client(suite.app, staff).get<MeDto>('/api/v1/me')).body.key.id;
    expect((await client(suite.app, staff).post(PATIENTS, { firstName: 'No', lastName: 'Role' })).status).toBe(403);

    expect((await entries(suite.tenant.testKey, `resourceId=${missing}`, 1))[0]).toMatchObject({ action: 'patient.read', status: 404 });
    const refused = await entries(suite.tenant.testKey, `apiKeyId=${staffId}`, 1);
    expect(refused[0]).toMatchObject({ action: 'patient.create', status: 403, resourceId: null });
  });

  it('records reads and changes of API keys and settings', async () => {
    const t = await createTenant(suite.app);
    const key = await client(suite.app, t.testKey).post<CreatedApiKeyDto>('/api/v1/settings/portal-access-keys', { name: 'audited' });
    await client(suite.app, t.testKey).delete(`/api/v1/settings/portal-access-keys/${key.body.id}`);
    await client(suite.app, t.testKey).post('/api/v1/settings/practice', { name: 'Audited clinic' });
    await client(suite.app, t.testKey).get('/api/v1/settings/practice');
    const log = await entries(t.testKey, 'limit=10', 4);
    expect(log.map((e) => [e.action, e.resourceType, e.resourceId, e.status])).toEqual([
      ['settings.read', 'settings', 'practice', 200],
      ['settings.update', 'settings', 'practice', 200],
      ['api_key.revoke', 'api_key', key.body.id, 204],
      ['api_key.create', 'api_key', key.body.id, 201],
    ]);
  });

  it('filters by action, resource type, key and time, pages newest first with a cursor', async () => {
    const t = await createTenant(suite.app);
    const p = await createPatient(suite.app, t.testKey);
    for (let i = 0; i < 3; i++) await client(suite.app, t.testKey).get(`${PATIENTS}/${p.id}`);
    await client(suite.app, t.testKey).get('/api/v1/settings/brand');
    const all = await entries(t.testKey, 'limit=100', 5);
    expect(await entries(t.testKey, 'action=patient.read', 3)).toHaveLength(3);
    expect(await entries(t.testKey, 'resourceType=settings', 1)).toHaveLength(1);
    expect(await entries(t.testKey, 'from=2020-01-01&action=patient.read', 3)).toHaveLength(3);
    const create = all[all.length - 1];
    expect(create.action).toBe('patient.create');
    expect((await entries(t.testKey, `to=${encodeURIComponent(create.at)}`, 1))[0].id).toBe(create.id);
    expect(await entries(t.testKey, 'to=2020-01-01', 0)).toEqual([]);

    const page1 = await client(suite.app, t.testKey).get<AuditLogDto>(`${AUDIT}?limit=2`);
    const page2 = await client(suite.app, t.testKey).get<AuditLogDto>(`${AUDIT}?limit=2&cursor=${page1.body.nextCursor}`);
    const page3 = await client(suite.app, t.testKey).get<AuditLogDto>(`${AUDIT}?limit=2&cursor=${page2.body.nextCursor}`);
    // Reading the log is itself audited, so later pages may start with those reads; the five are all there once.
    const seen = [...page1.body.entries, ...page2.body.entries, ...page3.body.entries].map((e) => e.id);
    expect(new Set(seen).size).toBe(seen.length);

    const bad = await client(suite.app, t.testKey).get<Problem>(`${AUDIT}?apiKeyId=nope&from=later`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors!.map((e) => e.field).sort()).toEqual(['apiKeyId', 'from']);
  });

  it("cannot see another tenant's or mode's entries", async () => {
    const t = await createTenant(suite.app);
    const p = await createPatient(suite.app, suite.tenant.testKey);
    await entries(suite.tenant.testKey, `resourceId=${p.id}`, 1);
    expect(await entries(t.testKey, `resourceId=${p.id}`, 0)).toEqual([]);
    expect(await entries(suite.tenant.liveKey, `resourceId=${p.id}`, 0)).toEqual([]);
  });

  it('needs settings:read and OWNER or ADMIN; entries cannot be changed or deleted', async () => {
    const staff = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF' });
    expect((await client(suite.app, staff).get<Problem>(AUDIT)).body.code).toBe('insufficient_role');
    const noScope = await createKey(suite.app, suite.tenant.testKey, { role: 'ADMIN', scopes: ['patients:read'] });
    expect((await client(suite.app, noScope).get<Problem>(AUDIT)).body.code).toBe('insufficient_scope');
    const admin = await createKey(suite.app, suite.tenant.testKey, { role: 'ADMIN', scopes: ['settings:read'] });
    expect((await client(suite.app, admin).get(AUDIT)).status).toBe(200);

    const [entry] = await entries(suite.tenant.testKey, 'limit=1', 1);
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      expect((await call(suite.app, method, `${AUDIT}/${entry.id}`, { key: suite.tenant.testKey, body: {} })).status).toBe(404);
    }
    expect((await call(suite.app, 'DELETE', AUDIT, { key: suite.tenant.testKey })).status).toBe(404);
  });

  it('records a path parameter holding COPY structure, backslashes, NUL and non-ASCII as it was sent (NUL left out)', async () => {
    const hostile = 'a\tb\nc\rd\\e\\N\u0000f ✓é';
    const res = await suite.api().get(`${PATIENTS}/${encodeURIComponent(hostile)}`);
    expect([400, 404]).toContain(res.status);
    const stored = 'a\tb\nc\rd\\e\\Nf ✓é';
    const [entry] = await entries(suite.tenant.testKey, `resourceId=${encodeURIComponent(stored)}`, 1);
    expect(entry).toMatchObject({ action: 'patient.read', resourceId: stored, status: res.status });
    expect(entry.requestId).toBe(res.headers['x-request-id']);
    // The batch it was in was written whole: a read after it is there too.
    const after = await suite.api().get(`${PATIENTS}/0193a5b2-7c1d-7e4f-8a9b-00000000beef`);
    expect(after.status).toBe(404);
    await entries(suite.tenant.testKey, 'resourceId=0193a5b2-7c1d-7e4f-8a9b-00000000beef', 1);
  });

  it('loses no entry across a graceful shutdown', async () => {
    // A flush interval longer than the test: only the shutdown flush can write these.
    const second = await startApp({ ...NO_RATE_LIMITS, WORKERS: 'off', AUDIT_FLUSH_INTERVAL_MS: '600000' });
    const t = await createTenant(second);
    const p = await createPatient(second, t.testKey);
    const reads = await Promise.all(Array.from({ length: 25 }, () => client(second, t.testKey).get(`${PATIENTS}/${p.id}`)));
    expect(reads.every((r) => r.status === 200)).toBe(true);
    const db = suite.app.get(DataSource);
    const count = async (): Promise<number> =>
      Number(
        (await db.query<{ count: string }[]>(`SELECT count(*) FROM audit_log WHERE tenant_id = $1 AND resource_id = $2`, [t.id, p.id]))[0]
          .count,
      );
    expect(await count()).toBe(0);
    await second.close();
    expect(await count()).toBe(26);
  });
});
