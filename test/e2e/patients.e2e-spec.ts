import { client, createKey, type Problem } from '../helpers/app';
import type { PatientDto, PatientListDto } from '../../src/modules/patients/dto/patient.dto';
import { useApp } from '../helpers/use-app';
import { createPatient, NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';

describe('Patients: create, read, update', () => {
  const suite = useApp(NO_RATE_LIMITS);
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    api = suite.api();
    await api.post(`${PATIENTS}/custom-fields`, { key: 'insurer', label: 'Insurer', type: 'text' });
    await api.post(`${PATIENTS}/custom-fields`, { key: 'visits', label: 'Visits', type: 'number' });
  });

  it('creates a patient with defaults, answering 201 with Location and ETag', async () => {
    const res = await api.post<PatientDto>(PATIENTS, { firstName: 'Ada', lastName: 'Lovelace' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/v1/patients/${res.body.id}`);
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{8}\.1"$/);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      externalId: null,
      joiningCode: expect.stringMatching(/^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/),
      email: null,
      phone: null,
      firstName: 'Ada',
      lastName: 'Lovelace',
      dateOfBirth: null,
      gender: null,
      address: null,
      patientType: 'prospect',
      patientStatus: 'active',
      tags: [],
      customFields: {},
      emailOptOut: false,
      smsOptOut: false,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updatedAt: res.body.createdAt,
    });
    const got = await api.get<PatientDto>(`${PATIENTS}/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
    expect(got.headers.etag).toBe(res.headers.etag);
  });

  it('creates a patient with every field, normalising phone and tags', async () => {
    const res = await api.post<PatientDto>(PATIENTS, {
      externalId: 'crm-1',
      email: 'grace@example.com',
      phone: '+44 20 7946 0000',
      firstName: '  Grace ',
      lastName: 'Hopper',
      dateOfBirth: '1906-12-09',
      gender: 'female',
      address: '1 Navy Yard',
      patientType: 'patient',
      patientStatus: 'inactive',
      tags: [' vip ', 'navy', 'vip'],
      customFields: { insurer: 'Bupa', visits: 3 },
      emailOptOut: true,
      smsOptOut: true,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      externalId: 'crm-1',
      email: 'grace@example.com',
      phone: '+442079460000',
      firstName: 'Grace',
      lastName: 'Hopper',
      dateOfBirth: '1906-12-09',
      gender: 'female',
      address: '1 Navy Yard',
      patientType: 'patient',
      patientStatus: 'inactive',
      tags: ['vip', 'navy'],
      customFields: { insurer: 'Bupa', visits: 3 },
      emailOptOut: true,
      smsOptOut: true,
    });
    expect((await api.get<PatientDto>(`${PATIENTS}/${res.body.id}`)).body).toEqual(res.body);
  });

  it('assigns distinct joining codes', async () => {
    const codes = new Set<string>();
    for (let i = 0; i < 20; i++) codes.add((await createPatient(suite.app, suite.tenant.testKey)).joiningCode);
    expect(codes.size).toBe(20);
  });

  it.each([
    ['firstName missing', { lastName: 'X' }, ['firstName']],
    ['lastName missing', { firstName: 'X' }, ['lastName']],
    ['blank firstName', { firstName: '   ', lastName: 'X' }, ['firstName']],
    ['firstName not a string', { firstName: 42, lastName: 'X' }, ['firstName']],
    ['firstName over 100 chars', { firstName: 'a'.repeat(101), lastName: 'X' }, ['firstName']],
    ['bad email', { firstName: 'A', lastName: 'B', email: 'not-an-email' }, ['email']],
    ['bad phone', { firstName: 'A', lastName: 'B', phone: '12345' }, ['phone']],
    ['national phone without country', { firstName: 'A', lastName: 'B', phone: '020 7946 0000' }, ['phone']],
    ['impossible date', { firstName: 'A', lastName: 'B', dateOfBirth: '2001-02-30' }, ['dateOfBirth']],
    ['future date of birth', { firstName: 'A', lastName: 'B', dateOfBirth: '2999-01-01' }, ['dateOfBirth']],
    ['date of birth not YYYY-MM-DD', { firstName: 'A', lastName: 'B', dateOfBirth: '01/02/2000' }, ['dateOfBirth']],
    ['date of birth before 1900', { firstName: 'A', lastName: 'B', dateOfBirth: '1850-01-01' }, ['dateOfBirth']],
    ['unknown patientType', { firstName: 'A', lastName: 'B', patientType: 'customer' }, ['patientType']],
    ['unknown patientStatus', { firstName: 'A', lastName: 'B', patientStatus: 'deleted' }, ['patientStatus']],
    ['tags not an array', { firstName: 'A', lastName: 'B', tags: 'vip' }, ['tags']],
    ['an empty tag', { firstName: 'A', lastName: 'B', tags: ['ok', '  '] }, ['tags']],
    ['a 65-character tag', { firstName: 'A', lastName: 'B', tags: ['t'.repeat(65)] }, ['tags']],
    ['51 distinct tags', { firstName: 'A', lastName: 'B', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, ['tags']],
    ['a non-string tag', { firstName: 'A', lastName: 'B', tags: [1] }, ['tags']],
    ['customFields an array', { firstName: 'A', lastName: 'B', customFields: [] }, ['customFields']],
    ['emailOptOut not boolean', { firstName: 'A', lastName: 'B', emailOptOut: 'yes' }, ['emailOptOut']],
    ['empty externalId', { firstName: 'A', lastName: 'B', externalId: '' }, ['externalId']],
    ['several at once', { email: 'x', phone: 'y' }, ['email', 'phone', 'firstName', 'lastName']],
  ])('answers 400 validation_failed naming the field: %s', async (_label, body, fields) => {
    const res = await api.post<Problem>(PATIENTS, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect([...new Set(res.body.errors!.map((e) => e.field))].sort()).toEqual([...fields].sort());
  });

  it('accepts 50 tags that de-duplicate from more entries', async () => {
    const tags = [...Array.from({ length: 50 }, (_, i) => `t${i}`), 't0', ' t1 '];
    const res = await api.post<PatientDto>(PATIENTS, { firstName: 'A', lastName: 'B', tags });
    expect(res.status).toBe(201);
    expect(res.body.tags).toHaveLength(50);
  });

  it('rejects an unknown body property', async () => {
    const res = await api.post<Problem>(PATIENTS, { firstName: 'A', lastName: 'B', nickname: 'Al' });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'nickname', message: 'is not a known property' }]);
  });

  it('rejects unknown custom field keys and wrongly typed values, naming customFields.<key>', async () => {
    const res = await api.post<Problem>(PATIENTS, { firstName: 'A', lastName: 'B', customFields: { insurer: 7, shoeSize: 42 } });
    expect(res.status).toBe(400);
    expect(res.body.errors!.map((e) => e.field).sort()).toEqual(['customFields.insurer', 'customFields.shoeSize']);
  });

  it('answers 404 for an unknown or malformed id', async () => {
    expect((await api.get(`${PATIENTS}/0190a0a0-0000-7000-8000-000000000000`)).status).toBe(404);
    expect((await api.get<Problem>(`${PATIENTS}/not-a-uuid`)).body.code).toBe('not_found');
    expect((await api.put(`${PATIENTS}/0190a0a0-0000-7000-8000-000000000000`, { firstName: 'X' })).status).toBe(404);
  });

  describe('PUT merges', () => {
    let patient: PatientDto;
    beforeEach(async () => {
      patient = await createPatient(suite.app, suite.tenant.testKey, {
        email: 'm@example.com',
        phone: '+14155552671',
        gender: 'male',
        tags: ['a', 'b'],
        customFields: { insurer: 'AXA', visits: 1 },
      });
    });

    it('leaves omitted fields unchanged and bumps the ETag', async () => {
      const res = await api.put<PatientDto>(`${PATIENTS}/${patient.id}`, { lastName: 'Changed' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...patient, lastName: 'Changed', updatedAt: res.body.updatedAt });
      expect(res.headers.etag).toMatch(/\.2"$/);
    });

    it('clears optional fields given null, and refuses null for required ones', async () => {
      const res = await api.put<PatientDto>(`${PATIENTS}/${patient.id}`, { email: null, phone: null, gender: null });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ email: null, phone: null, gender: null, firstName: patient.firstName });
      const bad = await api.put<Problem>(`${PATIENTS}/${patient.id}`, { firstName: null, lastName: null, patientType: null });
      expect(bad.status).toBe(400);
      expect([...new Set(bad.body.errors!.map((e) => e.field))].sort()).toEqual(['firstName', 'lastName', 'patientType']);
      expect((await api.get<PatientDto>(`${PATIENTS}/${patient.id}`)).body.firstName).toBe(patient.firstName);
    });

    it('replaces tags', async () => {
      const res = await api.put<PatientDto>(`${PATIENTS}/${patient.id}`, { tags: ['c', ' c ', 'd'] });
      expect(res.body.tags).toEqual(['c', 'd']);
      expect((await api.put<PatientDto>(`${PATIENTS}/${patient.id}`, { tags: null })).body.tags).toEqual([]);
    });

    it('merges customFields per key, null removing a key', async () => {
      const res = await api.put<PatientDto>(`${PATIENTS}/${patient.id}`, { customFields: { visits: 2 } });
      expect(res.body.customFields).toEqual({ insurer: 'AXA', visits: 2 });
      const removed = await api.put<PatientDto>(`${PATIENTS}/${patient.id}`, { customFields: { insurer: null } });
      expect(removed.body.customFields).toEqual({ visits: 2 });
      const bad = await api.put<Problem>(`${PATIENTS}/${patient.id}`, { customFields: { visits: 'many' } });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([{ field: 'customFields.visits', message: 'must be a number' }]);
    });

    it('validates like create and rejects unknown properties', async () => {
      const res = await api.put<Problem>(`${PATIENTS}/${patient.id}`, { phone: 'nope', joiningCode: 'AAAAAAAA' });
      expect(res.status).toBe(400);
      expect(res.body.errors!.map((e) => e.field).sort()).toEqual(['joiningCode', 'phone']);
    });

    it('answers 412 precondition_failed for a stale If-Match and applies a current one', async () => {
      const first = await api.get(`${PATIENTS}/${patient.id}`);
      const etag = String(first.headers.etag);
      const ok = await api.put<PatientDto>(`${PATIENTS}/${patient.id}`, { gender: 'x' }, { 'if-match': etag });
      expect(ok.status).toBe(200);
      const stale = await api.put<Problem>(`${PATIENTS}/${patient.id}`, { gender: 'y' }, { 'if-match': etag });
      expect(stale.status).toBe(412);
      expect(stale.body.code).toBe('precondition_failed');
      expect((await api.get<PatientDto>(`${PATIENTS}/${patient.id}`)).body.gender).toBe('x');
      expect((await api.put(`${PATIENTS}/${patient.id}`, { gender: 'z' }, { 'if-match': '*' })).status).toBe(200);
    });

    it('lets exactly one of two racing PUTs with the same If-Match win', async () => {
      const etag = String((await api.get(`${PATIENTS}/${patient.id}`)).headers.etag);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) => api.put(`${PATIENTS}/${patient.id}`, { address: `race ${i}` }, { 'if-match': etag })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 412, 412, 412, 412, 412]);
    });

    it("does not accept another patient's ETag", async () => {
      const other = await createPatient(suite.app, suite.tenant.testKey);
      const otherTag = String((await api.get(`${PATIENTS}/${other.id}`)).headers.etag);
      expect((await api.put(`${PATIENTS}/${patient.id}`, { gender: 'q' }, { 'if-match': otherTag })).status).toBe(412);
    });
  });

  describe('externalId', () => {
    it('is unique per tenant and mode (409 external_id_taken) but free in the other mode', async () => {
      await createPatient(suite.app, suite.tenant.testKey, { externalId: 'ext-dup' });
      const dup = await api.post<Problem>(PATIENTS, { firstName: 'A', lastName: 'B', externalId: 'ext-dup' });
      expect(dup.status).toBe(409);
      expect(dup.body.code).toBe('external_id_taken');
      const live = await suite
        .api(suite.tenant.liveKey)
        .post<PatientDto>(PATIENTS, { firstName: 'A', lastName: 'B', externalId: 'ext-dup' });
      expect(live.status).toBe(201);
      const other = await createPatient(suite.app, suite.tenant.testKey);
      expect((await api.put<Problem>(`${PATIENTS}/${other.id}`, { externalId: 'ext-dup' })).body.code).toBe('external_id_taken');
    });

    it('gives exactly one 201 to concurrent creates with the same externalId, the rest 409', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, () => api.post(PATIENTS, { firstName: 'Race', lastName: 'Condition', externalId: 'ext-race' })),
      );
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
      const list = await api.get<PatientListDto>(`${PATIENTS}?externalId=ext-race`);
      expect(list.body.patients).toHaveLength(1);
    });
  });

  describe('roles and scopes', () => {
    it('refuses create to a STAFF key (403 insufficient_role)', async () => {
      const staff = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF' });
      const res = await suite.api(staff).post<Problem>(PATIENTS, { firstName: 'A', lastName: 'B' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_role');
    });

    it('lets a STAFF key update (PUT is any role)', async () => {
      const staff = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF' });
      const p = await createPatient(suite.app, suite.tenant.testKey);
      expect((await suite.api(staff).put(`${PATIENTS}/${p.id}`, { gender: 'f' })).status).toBe(200);
    });

    it('refuses PUT to a key without patients:write (403 insufficient_scope), but lets it read', async () => {
      const reader = await createKey(suite.app, suite.tenant.testKey, { scopes: ['patients:read'] });
      const p = await createPatient(suite.app, suite.tenant.testKey);
      const res = await suite.api(reader).put<Problem>(`${PATIENTS}/${p.id}`, { gender: 'f' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
      expect((await suite.api(reader).get(`${PATIENTS}/${p.id}`)).status).toBe(200);
    });

    it('refuses reads to a key without patients:read', async () => {
      const other = await createKey(suite.app, suite.tenant.testKey, { scopes: ['forms:read'] });
      const res = await suite.api(other).get<Problem>(PATIENTS);
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('insufficient_scope');
    });
  });
});
