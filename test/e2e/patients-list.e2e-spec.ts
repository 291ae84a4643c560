import { client, createTenant, type Problem, type TestResponse } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { createPatient, NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';
import { clock } from '../../src/common/time/clock';
import type { PatientDto, PatientListDto, TagListDto } from '../../src/modules/patients/dto/patient.dto';

/** A birth date that makes someone `years` old today plus `days` days (UTC). */
function bornYearsAgo(years: number, days = 10): string {
  const d = clock.now();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  d.setUTCDate(d.getUTCDate() - days);
  return d.toISOString().slice(0, 10);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Patients: list, filters, pagination, tags', () => {
  const suite = useApp(NO_RATE_LIMITS);
  let api: ReturnType<typeof client>;
  const ids: Record<string, string> = {};
  let betweenCreates: string;
  let afterCreates: string;

  const names = async (query: string): Promise<string[]> => {
    const res = await api.get<PatientListDto>(`${PATIENTS}?limit=100&${query}`);
    expect(res.status).toBe(200);
    return res.body.patients.map((p) => p.firstName).sort();
  };

  beforeAll(async () => {
    api = suite.api();
    const k = suite.tenant.testKey;
    ids.alice = (
      await createPatient(suite.app, k, {
        firstName: 'Alice',
        lastName: 'Anders',
        email: 'Alice.Anders@Example.com',
        phone: '+442079460001',
        tags: ['vip', 'london'],
        patientType: 'patient',
        gender: 'Female',
        dateOfBirth: bornYearsAgo(30),
        externalId: 'ext-alice',
      })
    ).id;
    ids.bob = (
      await createPatient(suite.app, k, {
        firstName: 'Bob',
        lastName: 'Brown',
        email: 'bob@example.org',
        tags: ['london'],
        patientStatus: 'archived',
        gender: 'male',
        dateOfBirth: bornYearsAgo(45),
      })
    ).id;
    await sleep(20);
    betweenCreates = clock.now().toISOString();
    await sleep(20);
    ids.carol = (
      await createPatient(suite.app, k, {
        firstName: 'Carol',
        lastName: 'Clark',
        phone: '+14155552671',
        tags: ['paris'],
        patientType: 'lead',
      })
    ).id;
    ids.dan = (await createPatient(suite.app, k, { firstName: 'Dan', lastName: 'Dawson', dateOfBirth: bornYearsAgo(12) })).id;
    await sleep(20);
    afterCreates = clock.now().toISOString();
  });

  it('lists newest first', async () => {
    const res = await api.get<PatientListDto>(PATIENTS);
    expect(res.status).toBe(200);
    expect(res.body.patients.map((p) => p.firstName)).toEqual(['Dan', 'Carol', 'Bob', 'Alice']);
    expect(res.body.nextCursor).toBeNull();
  });

  it.each([
    ['search by first name, any case', 'search=aLiCe', ['Alice']],
    ['search by last-name fragment', 'search=rown', ['Bob']],
    ['search by full name', 'search=carol%20clark', ['Carol']],
    ['search by email fragment', 'search=example.org', ['Bob']],
    ['search by phone digits', 'search=4155552671', ['Carol']],
    ['search by phone as typed', 'search=%2B1%20415%20555', ['Carol']],
    ['search treats % literally', 'search=%25', []],
    ['tags, any of', 'tags=paris,vip', ['Alice', 'Carol']],
    ['tags, one', 'tags=london', ['Alice', 'Bob']],
    ['patientType', 'patientType=lead', ['Carol']],
    ['patientStatus', 'patientStatus=archived', ['Bob']],
    ['gender, case-insensitive', 'gender=female', ['Alice']],
    ['ageMin', 'ageMin=40', ['Bob']],
    ['ageMax', 'ageMax=29', ['Dan']],
    ['ageMin and ageMax', 'ageMin=30&ageMax=45', ['Alice', 'Bob']],
    ['hasEmail=true', 'hasEmail=true', ['Alice', 'Bob']],
    ['hasEmail=false', 'hasEmail=false', ['Carol', 'Dan']],
    ['hasPhone=true', 'hasPhone=true', ['Alice', 'Carol']],
    ['hasPhone=false', 'hasPhone=false', ['Bob', 'Dan']],
    ['email, case-insensitive exact', 'email=alice.anders@example.com', ['Alice']],
    ['email, no partial match', 'email=alice', []],
    ['externalId', 'externalId=ext-alice', ['Alice']],
    ['combined filters (AND)', 'tags=london&patientStatus=archived', ['Bob']],
  ])('filters: %s', async (_label, query, expected) => {
    expect(await names(query)).toEqual(expected);
  });

  it('filters by the joining code', async () => {
    const carol = (await api.get<PatientDto>(`${PATIENTS}/${ids.carol}`)).body;
    expect(await names(`search=${carol.joiningCode.toLowerCase()}`)).toEqual(['Carol']);
  });

  it('filters by creation date range', async () => {
    expect(await names(`dateFrom=${encodeURIComponent(betweenCreates)}`)).toEqual(['Carol', 'Dan']);
    expect(await names(`dateTo=${encodeURIComponent(betweenCreates)}`)).toEqual(['Alice', 'Bob']);
    expect(await names(`dateFrom=${encodeURIComponent(afterCreates)}`)).toEqual([]);
    const today = clock.now().toISOString().slice(0, 10);
    expect(await names(`dateFrom=${today}&dateTo=${today}`)).toEqual(['Alice', 'Bob', 'Carol', 'Dan']);
  });

  it('filters by updatedSince', async () => {
    const since = clock.now().toISOString();
    await sleep(5);
    expect((await api.put(`${PATIENTS}/${ids.alice}`, { address: 'moved' })).status).toBe(200);
    expect(await names(`updatedSince=${encodeURIComponent(since)}`)).toEqual(['Alice']);
  });

  it.each([
    ['unknown patientType', 'patientType=x', 'patientType'],
    ['ageMin not a number', 'ageMin=old', 'ageMin'],
    ['ageMin above ageMax', 'ageMin=50&ageMax=10', 'ageMin'],
    ['hasEmail not boolean', 'hasEmail=maybe', 'hasEmail'],
    ['dateFrom not a date', 'dateFrom=yesterday', 'dateFrom'],
    ['limit over 100', 'limit=101', 'limit'],
    ['a cursor not issued by the API', 'cursor=abc', 'cursor'],
    ['an unknown parameter', 'colour=blue', 'colour'],
  ])('answers 400 for a bad query: %s', async (_label, query, field) => {
    const res = await api.get<Problem>(`${PATIENTS}?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.errors!.map((e: { field: string }) => e.field)).toContain(field);
  });

  it('counts tags, most used first', async () => {
    const res = await api.get(`${PATIENTS}/tags`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      tags: [
        { name: 'london', count: 2 },
        { name: 'paris', count: 1 },
        { name: 'vip', count: 1 },
      ],
    });
    await api.put(`${PATIENTS}/${ids.bob}`, { tags: ['paris'] });
    const after = await api.get<TagListDto>(`${PATIENTS}/tags`);
    expect(after.body.tags).toEqual([
      { name: 'paris', count: 2 },
      { name: 'london', count: 1 },
      { name: 'vip', count: 1 },
    ]);
    await api.put(`${PATIENTS}/${ids.bob}`, { tags: ['london'] });
  });

  it('pages through a tag filter newest first, following tag changes, the other filters and the scope', async () => {
    const t = await createTenant(suite.app);
    const c = suite.api(t.testKey);
    const created: { id: string; tags: string[] }[] = [];
    for (let i = 0; i < 12; i++) {
      const tags = i % 3 === 0 ? ['red', 'blue'] : i % 3 === 1 ? ['red'] : ['blue'];
      const body = { tags, patientType: i % 2 === 0 ? 'lead' : 'patient' };
      created.push({ id: (await createPatient(suite.app, t.testKey, body)).id, tags });
    }
    // The same tags in live mode and in another tenant: never part of this scope's pages.
    await createPatient(suite.app, t.liveKey, { tags: ['red'] });
    await createPatient(suite.app, suite.tenant.testKey, { tags: ['red', 'blue'] });
    const pages = async (query: string): Promise<string[]> => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: TestResponse<{ patients: PatientDto[]; nextCursor: string | null }> = await c.get(
          `${PATIENTS}?limit=2&${query}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(res.status).toBe(200);
        seen.push(...res.body.patients.map((p) => p.id));
        cursor = res.body.nextCursor;
      } while (cursor);
      return seen;
    };
    const newestFirst = (keep: (p: { id: string; tags: string[] }, i: number) => boolean): string[] =>
      created
        .filter(keep)
        .map((p) => p.id)
        .reverse();
    expect(await pages('tags=red')).toEqual(newestFirst((p) => p.tags.includes('red')));
    // Any of: a patient with both tags comes once.
    expect(await pages('tags=red,blue,red')).toEqual(newestFirst(() => true));
    expect(await pages('tags=blue&patientType=lead')).toEqual(newestFirst((p, i) => p.tags.includes('blue') && i % 2 === 0));
    await c.put(`${PATIENTS}/${created[1].id}`, { tags: ['green'] });
    await c.put(`${PATIENTS}/${created[2].id}`, { tags: ['blue', 'red'] });
    created[1].tags = ['green'];
    created[2].tags = ['blue', 'red'];
    expect(await pages('tags=red')).toEqual(newestFirst((p) => p.tags.includes('red')));
    expect(await pages('tags=green')).toEqual([created[1].id]);
  });

  it('pages through every patient with no gaps or duplicates while patients are being inserted', async () => {
    const t = await createTenant(suite.app);
    const c = suite.api(t.testKey);
    const initial: string[] = [];
    for (let i = 0; i < 23; i++) initial.push((await createPatient(suite.app, t.testKey)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: TestResponse<PatientListDto> = await c.get<PatientListDto>(`${PATIENTS}?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.patients.map((p) => p.id));
      cursor = res.body.nextCursor;
      pages++;
      // New patients arrive between pages; they are newer than the cursor, so they never shift the pages.
      await createPatient(suite.app, t.testKey);
      await createPatient(suite.app, t.testKey);
    } while (cursor);
    expect(pages).toBe(5);
    expect(seen).toEqual([...initial].reverse());
    expect(new Set(seen).size).toBe(seen.length);
  });
});
