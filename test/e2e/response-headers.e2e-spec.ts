import { client, createTenant } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { NO_RATE_LIMITS, PATIENTS, waitForImport } from '../helpers/patients';

const KEYS = '/api/v1/settings/portal-access-keys';

/**
 * Location, ETag and Cache-Control come from route decorators (src/common/http/responses/response-headers.ts), the
 * same way in every module; responses with patient data or a key's secret are never stored by caches.
 */
describe('Response headers: Location, ETag, Cache-Control: no-store', () => {
  const suite = useApp(NO_RATE_LIMITS);
  let key: string;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    key = (await createTenant(suite.app)).testKey;
    api = suite.api(key);
  });

  it('patients: Location and ETag on create, ETag on read and update, no-store on every answer (errors included)', async () => {
    const created = await api.post<{ id: string; firstName: string }>(PATIENTS, { firstName: 'Ada', lastName: 'Lovelace' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`${PATIENTS}/${created.body.id}`);
    expect(created.headers.etag).toMatch(/^"[\w-]{8}\.1"$/);
    expect(created.headers['cache-control']).toBe('no-store');
    expect(created.body.firstName).toBe('Ada'); // the body, not the tagged wrapper

    const read = await api.get(`${PATIENTS}/${created.body.id}`);
    expect(read.headers.etag).toBe(created.headers.etag);
    expect(read.headers['cache-control']).toBe('no-store');
    expect(read.body).toEqual(created.body);

    const updated = await api.put(`${PATIENTS}/${created.body.id}`, { lastName: 'Byron' }, { 'if-match': String(read.headers.etag) });
    expect(updated.status).toBe(200);
    expect(updated.headers.etag).toMatch(/\.2"$/);
    expect(updated.headers['cache-control']).toBe('no-store');

    for (const url of [PATIENTS, `${PATIENTS}/tags`, `${PATIENTS}/0190c1c5-0000-7000-8000-000000000001`]) {
      expect((await api.get(url)).headers['cache-control']).toBe('no-store');
    }
  });

  it('clinical: Location of the clinical record, no-store on writes and reads', async () => {
    const patient = await api.post<{ id: string }>(PATIENTS, { firstName: 'Clin', lastName: 'Ical' });
    const condition = await api.post<{ display: string }>(`${PATIENTS}/${patient.body.id}/clinical/conditions`, {
      display: 'Asthma',
      clinicalStatus: 'active',
    });
    expect(condition.status).toBe(201);
    expect(condition.headers.location).toBe(`${PATIENTS}/${patient.body.id}/clinical`);
    expect(condition.headers['cache-control']).toBe('no-store');
    expect(condition.body.display).toBe('Asthma');
    expect((await api.get(`${PATIENTS}/${patient.body.id}/clinical`)).headers['cache-control']).toBe('no-store');
  });

  it('bulk import: 202 with the status Location; the status and a dry run are no-store; a dry run is 200 without Location', async () => {
    const accepted = await api.post<{ jobId: string }>(`${PATIENTS}/bulk-import`, { patients: [{ firstName: 'Bulk', lastName: 'One' }] });
    expect(accepted.status).toBe(202);
    expect(accepted.headers.location).toBe(`${PATIENTS}/bulk-import/${accepted.body.jobId}`);
    await waitForImport(suite.app, key, accepted.body.jobId);
    const status = await api.get(`${PATIENTS}/bulk-import/${accepted.body.jobId}`);
    expect(status.headers['cache-control']).toBe('no-store');
    const dry = await api.post<{ dryRun: boolean }>(`${PATIENTS}/bulk-import?dryRun=true`, {
      patients: [{ firstName: 'Dry', lastName: 'Run' }],
    });
    expect(dry.status).toBe(200);
    expect(dry.body.dryRun).toBe(true);
    expect(dry.headers.location).toBeUndefined();
    expect(dry.headers['cache-control']).toBe('no-store');
  });

  it('API keys: the create answer (with the secret) is no-store and located; lists and settings are not marked', async () => {
    const created = await api.post<{ id: string }>(KEYS, { name: 'headers' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`${KEYS}/${created.body.id}`);
    expect(created.headers['cache-control']).toBe('no-store');
    expect((await api.get(KEYS)).headers['cache-control']).toBeUndefined();
    expect((await api.get('/api/v1/settings/practice')).headers['cache-control']).toBeUndefined();
  });

  it('an idempotent replay carries the same Location, ETag and no-store', async () => {
    const headers = { 'idempotency-key': 'headers-replay' };
    const first = await api.post(PATIENTS, { firstName: 'Re', lastName: 'Play' }, headers);
    const again = await api.post(PATIENTS, { firstName: 'Re', lastName: 'Play' }, headers);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['cache-control']).toBe('no-store');
    expect(again.body).toEqual(first.body);
  });
});
