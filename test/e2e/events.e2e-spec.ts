import { client, createKey, createTenant, type Problem, TestTenant } from '../helpers/app';
import type { EventOf, EventPageOf } from '../helpers/events';
import type { PatientDto, PatientUpdatedEvent } from '../../src/modules/patients';
import type { BulkImportAcceptedDto } from '../../src/modules/patients/dto/bulk-import.dto';
import { useApp } from '../helpers/use-app';
import { createPatient, NO_RATE_LIMITS, PATIENTS, waitForImport } from '../helpers/patients';
import { Transactions } from '../../src/database/transactions';
import { EventsService } from '../../src/modules/events/events.service';

const EVENTS = '/api/v1/events';
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('Events outbox', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'on' });
  let other: TestTenant;
  beforeAll(async () => (other = await createTenant(suite.app)));

  /** Every event of this suite is a patient's: patient.updated ones also carry `previous`. */
  const eventsOf = async <Data = PatientDto>(key: string, query = ''): Promise<EventOf<Data>[]> => {
    const res = await client(suite.app, key).get<EventPageOf<Data>>(`${EVENTS}${query}`);
    expect(res.status).toBe(200);
    return res.body.events;
  };

  it('records patient.created with the patient as the API returned it, under a UUIDv7 id', async () => {
    const patient = await createPatient(suite.app, suite.tenant.testKey, { email: 'ada@example.com', tags: ['vip'] });
    const [event] = (await eventsOf(suite.tenant.testKey, '?type=patient.created')).filter((e) => e.data.id === patient.id);
    expect(event).toEqual({ id: expect.stringMatching(UUID_V7), type: 'patient.created', createdAt: expect.any(String), data: patient });
    const one = await suite.api().get<EventOf<PatientDto>>(`${EVENTS}/${event.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(event);
  });

  it('records patient.updated with the updated patient and, in previous, the members it replaced', async () => {
    const patient = await createPatient(suite.app, suite.tenant.testKey);
    const put = await suite.api().put<PatientDto>(`${PATIENTS}/${patient.id}`, { lastName: 'Lovelace', tags: ['vip'], emailOptOut: false });
    expect(put.status).toBe(200);
    const updated = (await eventsOf<PatientUpdatedEvent>(suite.tenant.testKey, '?type=patient.updated')).filter(
      (e) => e.data.id === patient.id,
    );
    expect(updated).toHaveLength(1);
    expect(updated[0].data).toEqual({ ...put.body, previous: { lastName: patient.lastName, tags: [] } });
    expect(updated[0].data.lastName).toBe('Lovelace');
  });

  it('records no event for a change that is rolled back', async () => {
    await createPatient(suite.app, suite.tenant.testKey, { externalId: 'dup-1' });
    const before = (await eventsOf(suite.tenant.testKey, '?limit=100')).length;
    expect((await suite.api().post(PATIENTS, { firstName: 'A', lastName: 'B', externalId: 'dup-1' })).status).toBe(409);
    const target = await createPatient(suite.app, suite.tenant.testKey, { externalId: 'dup-2' });
    expect((await suite.api().put(`${PATIENTS}/${target.id}`, { externalId: 'dup-1' })).status).toBe(409);
    // One event (dup-2's creation) since, none for the two refused writes.
    expect((await eventsOf(suite.tenant.testKey, '?limit=100')).length).toBe(before + 1);

    // An event recorded before the transaction fails is rolled back with it.
    const events = suite.app.get(EventsService);
    const marker = `rolled-back-${Date.now()}`;
    await expect(
      suite.app.get(Transactions).run(async (tx) => {
        await events.record({ tenantId: suite.tenant.id, mode: 'test' }, 'patient.created', { id: marker }, tx);
        throw new Error('the change fails after the event was written');
      }),
    ).rejects.toThrow('the change fails');
    expect((await eventsOf(suite.tenant.testKey, '?limit=100')).some((e) => e.data.id === marker)).toBe(false);
  });

  it('records one event per row written by a bulk import', async () => {
    const existing = await createPatient(suite.app, suite.tenant.testKey, { externalId: 'bulk-existing' });
    const res = await suite.api().post<BulkImportAcceptedDto>(`${PATIENTS}/bulk-import`, {
      patients: [
        { firstName: 'New', lastName: 'One', externalId: 'bulk-new-1' },
        { firstName: 'New', lastName: 'Two' },
        { firstName: 'Changed', lastName: 'Name', externalId: 'bulk-existing' },
        { firstName: '', lastName: 'Invalid row' },
      ],
    });
    expect(res.status).toBe(202);
    const job = await waitForImport(suite.app, suite.tenant.testKey, res.body.jobId);
    expect(job).toMatchObject({ status: 'completed', created: 2, updated: 1, failed: 1 });
    const recent = await eventsOf(suite.tenant.testKey, '?limit=20');
    const created = recent.filter((e) => e.type === 'patient.created' && ['One', 'Two'].includes(e.data.lastName));
    expect(created.map((e) => e.data.lastName).sort()).toEqual(['One', 'Two']);
    const updated = recent.filter((e) => e.type === 'patient.updated' && e.data.id === existing.id);
    expect(updated).toHaveLength(1);
    expect(updated[0].data).toMatchObject({ id: existing.id, firstName: 'Changed', lastName: 'Name', externalId: 'bulk-existing' });
    const read = await suite.api().get<PatientDto>(`${PATIENTS}/${existing.id}`);
    // As a PUT's: the patient as written, and in previous the members the row replaced.
    expect(updated[0].data).toEqual({ ...read.body, previous: { firstName: existing.firstName, lastName: existing.lastName } });
  });

  it('lists newest first with cursor pagination and type and time filters', async () => {
    const t = await createTenant(suite.app);
    const a = await createPatient(suite.app, t.testKey);
    const b = await createPatient(suite.app, t.testKey);
    await client(suite.app, t.testKey).put(`${PATIENTS}/${a.id}`, { firstName: 'Changed' });
    const page1 = await client(suite.app, t.testKey).get<EventPageOf<PatientDto>>(`${EVENTS}?limit=2`);
    expect(page1.body.events.map((e) => e.type)).toEqual(['patient.updated', 'patient.created']);
    expect(page1.body.events[1].data.id).toBe(b.id);
    const page2 = await client(suite.app, t.testKey).get<EventPageOf<PatientDto>>(`${EVENTS}?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body.events.map((e) => e.data.id)).toEqual([a.id]);
    expect(page2.body.nextCursor).toBeNull();

    expect((await eventsOf(t.testKey, '?type=patient.updated')).map((e) => e.data.id)).toEqual([a.id]);
    const from = page1.body.events[0].createdAt;
    expect((await eventsOf(t.testKey, `?from=${encodeURIComponent(from)}`)).map((e) => e.type)).toContain('patient.updated');
    expect(await eventsOf(t.testKey, '?to=2020-01-01')).toEqual([]);
    const bad = await client(suite.app, t.testKey).get<Problem>(`${EVENTS}?type=patient.deleted&from=yesterday`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors!.map((e) => e.field).sort()).toEqual(['from', 'type']);
  });

  it("cannot see another tenant's or mode's events", async () => {
    const patient = await createPatient(suite.app, suite.tenant.testKey);
    const [event] = (await eventsOf(suite.tenant.testKey)).filter((e) => e.data.id === patient.id);
    for (const key of [other.testKey, suite.tenant.liveKey]) {
      expect((await eventsOf(key)).some((e) => e.id === event.id)).toBe(false);
      const res = await client(suite.app, key).get<Problem>(`${EVENTS}/${event.id}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await suite.api().get(`${EVENTS}/not-a-uuid`)).status).toBe(404);
  });

  it('needs webhooks:read, from any role', async () => {
    const noScope = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF', scopes: ['patients:read'] });
    const res = await client(suite.app, noScope).get<Problem>(EVENTS);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('insufficient_scope');
    const staff = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF', scopes: ['webhooks:read'] });
    expect((await client(suite.app, staff).get(EVENTS)).status).toBe(200);
  });
});
