import { client, createKey, createTenant, type Problem } from '../helpers/app';
import type { SchedulerDto, SchedulerListDto } from '../../src/modules/booking-pages/dto/scheduler.dto';
import type { ProviderDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import { useApp } from '../helpers/use-app';
import { NO_RATE_LIMITS } from '../helpers/patients';
import { createProvider, createScheduler, fieldsOf, SCHEDULERS } from '../helpers/scheduling';

describe('Schedulers (booking pages): create, read, list, change', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off' });
  let api: ReturnType<typeof client>;
  let providers: ProviderDto[];

  beforeAll(async () => {
    api = suite.api();
    providers = [await createProvider(suite.app, suite.tenant.testKey), await createProvider(suite.app, suite.tenant.testKey)];
  });

  it('creates: 201, Location, the slug from the name, counters at 0, conversionRate 0', async () => {
    const res = await api.post<SchedulerDto>(SCHEDULERS, {
      name: '  Première Consultation ',
      description: 'First visit',
      providerIds: providers.map((p) => p.id),
      duration: 45,
      type: 'consultation',
    });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/v1/schedulers/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.any(String),
      name: 'Première Consultation',
      slug: 'premiere-consultation',
      description: 'First visit',
      providerIds: providers.map((p) => p.id),
      duration: 45,
      type: 'consultation',
      appointmentTypeId: null,
      isActive: true,
      requirePhone: false,
      // The page patients open: PUBLIC_URL (unset here: the local address) and the public route.
      bookingUrl: `http://127.0.0.1:3000/api/v1/public/schedulers/${res.body.id}`,
      viewsCount: 0,
      bookingsCount: 0,
      conversionRate: 0,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect((await api.get<SchedulerDto>(`${SCHEDULERS}/${res.body.id}`)).body).toEqual(res.body);
  });

  it('refuses a taken slug with 409 slug_taken naming slug, on create and on change, and under concurrency', async () => {
    const first = await createScheduler(suite.app, suite.tenant.testKey, [providers[0].id], { name: 'Follow-up visit' });
    expect(first.slug).toBe('follow-up-visit');
    const again = await api.post<Problem>(SCHEDULERS, { name: 'Follow-up Visit!', providerIds: [providers[0].id], duration: 30 });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'slug_taken', errors: [{ field: 'slug' }] });

    const other = await createScheduler(suite.app, suite.tenant.testKey, [providers[0].id], { slug: 'other-page' });
    const clash = await api.patch<Problem>(`${SCHEDULERS}/${other.id}`, { slug: 'follow-up-visit' });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('slug_taken');
    expect((await api.get<SchedulerDto>(`${SCHEDULERS}/${other.id}`)).body.slug).toBe('other-page');

    const racing = await Promise.all(
      Array.from({ length: 8 }, () =>
        api.post(SCHEDULERS, { name: 'Race', slug: 'race-page', providerIds: [providers[0].id], duration: 30 }),
      ),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);

    // Unique per tenant and mode: the live mode and another tenant may use it.
    const liveProvider = await createProvider(suite.app, suite.tenant.liveKey);
    expect(
      (
        await suite.api(suite.tenant.liveKey).post(SCHEDULERS, {
          name: 'Race',
          slug: 'race-page',
          providerIds: [liveProvider.id],
          duration: 30,
        })
      ).status,
    ).toBe(201);
  });

  it('changes members, clears description and type with null, keeps the rest', async () => {
    const s = await createScheduler(suite.app, suite.tenant.testKey, [providers[0].id], { description: 'D', type: 't' });
    const res = await api.patch<SchedulerDto>(`${SCHEDULERS}/${s.id}`, {
      name: 'Renamed',
      description: null,
      type: null,
      duration: 60,
      providerIds: [providers[1].id, providers[0].id],
      isActive: false,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Renamed',
      slug: s.slug,
      description: null,
      type: null,
      duration: 60,
      providerIds: [providers[1].id, providers[0].id],
      isActive: false,
    });
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(s.updatedAt));
    expect((await api.patch<SchedulerDto>(`${SCHEDULERS}/${s.id}`, {})).body).toMatchObject({ name: 'Renamed', duration: 60 });
  });

  it('lists newest first with a cursor and filters by isActive', async () => {
    const t = await createTenant(suite.app);
    const p = await createProvider(suite.app, t.testKey);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createScheduler(suite.app, t.testKey, [p.id], { isActive: i !== 1 }));
    const them = suite.api(t.testKey);
    const page1 = await them.get<SchedulerListDto>(`${SCHEDULERS}?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.schedulers.map((s) => s.id)).toEqual([made[2].id, made[1].id]);
    const page2 = await them.get<SchedulerListDto>(`${SCHEDULERS}?limit=2&cursor=${page1.body.nextCursor}`);
    expect(page2.body).toEqual({ schedulers: [made[0]], nextCursor: null });
    expect((await them.get<SchedulerListDto>(`${SCHEDULERS}?isActive=false`)).body.schedulers.map((s) => s.id)).toEqual([made[1].id]);
  });

  it('answers 400 naming each bad field, never a 500', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{}, ['name', 'providerIds', 'duration']],
      [{ name: ' ', providerIds: [], duration: 4 }, ['name', 'providerIds', 'duration']],
      [{ name: 'x', providerIds: ['nope'], duration: 481 }, ['providerIds', 'duration']],
      [{ name: 'x', providerIds: [providers[0].id], duration: 30, slug: 'Not A Slug' }, ['slug']],
      [{ name: 'x', providerIds: [providers[0].id, providers[0].id], duration: 30 }, ['providerIds']],
      [{ name: 'x', providerIds: [providers[0].id], duration: 30.5, isActive: 'yes' }, ['duration', 'isActive']],
      [{ name: 'x', providerIds: [providers[0].id], duration: 30, extra: 1 }, ['extra']],
      [{ name: 'x', providerIds: [providers[0].id], duration: 30, description: 'x'.repeat(2001) }, ['description']],
    ];
    for (const [body, fields] of cases) {
      const res = await api.post<Problem>(SCHEDULERS, body);
      expect([res.status, res.body.code]).toEqual([400, 'validation_failed']);
      expect(new Set(fieldsOf(res.body).map((f) => f.split('.')[0]))).toEqual(new Set(fields));
    }
    const s = await createScheduler(suite.app, suite.tenant.testKey, [providers[0].id]);
    for (const body of [{ name: null }, { slug: null }, { providerIds: null }, { duration: null }, { isActive: null }]) {
      const res = await api.patch<Problem>(`${SCHEDULERS}/${s.id}`, body);
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body)).toEqual(Object.keys(body));
    }
    expect((await api.get(`${SCHEDULERS}?isActive=maybe`)).status).toBe(400);
  });

  it('refuses providerIds of another tenant or mode with a 400 naming providerIds.<index>', async () => {
    const other = await createTenant(suite.app);
    const foreign = await createProvider(suite.app, other.testKey);
    const live = await createProvider(suite.app, suite.tenant.liveKey);
    const res = await api.post<Problem>(SCHEDULERS, { name: 'x', providerIds: [providers[0].id, foreign.id, live.id], duration: 30 });
    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['providerIds.1', 'providerIds.2']);
    const s = await createScheduler(suite.app, suite.tenant.testKey, [providers[0].id]);
    const patch = await api.patch<Problem>(`${SCHEDULERS}/${s.id}`, { providerIds: [foreign.id] });
    expect(patch.status).toBe(400);
    expect(fieldsOf(patch.body)).toEqual(['providerIds.0']);
    expect((await api.get<SchedulerDto>(`${SCHEDULERS}/${s.id}`)).body.providerIds).toEqual([providers[0].id]);
  });

  it("cannot see another tenant's or mode's schedulers", async () => {
    const s = await createScheduler(suite.app, suite.tenant.testKey, [providers[0].id], { name: 'Private page' });
    const other = await createTenant(suite.app);
    for (const key of [other.testKey, suite.tenant.liveKey]) {
      const them = suite.api(key);
      expect((await them.get(`${SCHEDULERS}/${s.id}`)).status).toBe(404);
      expect((await them.patch(`${SCHEDULERS}/${s.id}`, { name: 'Taken over' })).status).toBe(404);
      expect((await them.get<SchedulerListDto>(SCHEDULERS)).body.schedulers.map((x) => x.id)).not.toContain(s.id);
    }
    expect((await api.get<SchedulerDto>(`${SCHEDULERS}/${s.id}`)).body.name).toBe('Private page');
    expect((await api.get(`${SCHEDULERS}/not-a-uuid`)).status).toBe(404);
  });

  it('needs scheduling:read to read and scheduling:write to create or change', async () => {
    const s = await createScheduler(suite.app, suite.tenant.testKey, [providers[0].id]);
    const reader = suite.api(await createKey(suite.app, suite.tenant.testKey, { scopes: ['scheduling:read'], role: 'STAFF' }));
    const writer = suite.api(await createKey(suite.app, suite.tenant.testKey, { scopes: ['scheduling:write'], role: 'STAFF' }));
    const body = { name: 'Staff page', providerIds: [providers[0].id], duration: 30 };
    expect((await reader.get(SCHEDULERS)).status).toBe(200);
    expect((await reader.get(`${SCHEDULERS}/${s.id}`)).status).toBe(200);
    const refused = await reader.post<Problem>(SCHEDULERS, body);
    expect([refused.status, refused.body.code]).toEqual([403, 'insufficient_scope']);
    expect((await reader.patch(`${SCHEDULERS}/${s.id}`, { name: 'x' })).status).toBe(403);
    expect((await writer.get(SCHEDULERS)).status).toBe(403);
    expect((await writer.post(SCHEDULERS, body)).status).toBe(201);
    expect((await writer.patch(`${SCHEDULERS}/${s.id}`, { name: 'By staff' })).status).toBe(200);
    expect((await client(suite.app).get(SCHEDULERS)).status).toBe(401);
  });
});
