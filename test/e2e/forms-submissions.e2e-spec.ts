import { call, client, createKey, createTenant, dataSource, type Problem } from '../helpers/app';
import type { FormDto } from '../../src/modules/forms/dto/form.dto';
import type { SubmissionDetailDto, SubmissionListDto, SubmissionResultDto } from '../../src/modules/forms/dto/submission.dto';
import { useApp } from '../helpers/use-app';
import { createForm, EVERY_TYPE, FORMS, submit } from '../helpers/forms';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';

describe('Forms: submissions', () => {
  let api: ReturnType<typeof client>;
  let form: { id: string };

  const suite = useApp(NO_RATE_LIMITS);

  beforeAll(async () => {
    api = suite.api();
    form = await createForm(suite.app, suite.tenant.testKey);
  });

  it('stores an answer to every field type, normalised, and answers 201 with Location', async () => {
    const answers = {
      name: '  Ada Lovelace ',
      notes: 'Line one\nLine two',
      email: ' ada@example.com ',
      phone: '+44 20 7946 0000',
      pain: 7.5,
      visit_date: '2027-02-28',
      reason: 'Back pain',
      symptoms: ['fever', 'cough'],
      consent: false,
    };
    const res = await submit<SubmissionResultDto>(suite.app, suite.tenant.testKey, form.id, answers);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ submissionId: expect.stringMatching(/^[0-9a-f-]{36}$/), message: 'Form submitted' });
    expect(res.headers.location).toBe(`${FORMS}/${form.id}/submissions/${res.body.submissionId}`);
    const got = await api.get<SubmissionDetailDto>(res.headers.location as string);
    expect(got.status).toBe(200);
    // Patient data: no cache may keep it.
    expect([res.headers['cache-control'], got.headers['cache-control']]).toEqual(['no-store', 'no-store']);
    expect(got.body).toEqual({
      id: res.body.submissionId,
      formId: form.id,
      formVersion: 1,
      patientId: null,
      fields: { ...answers, name: 'Ada Lovelace', email: 'ada@example.com', phone: '+442079460000' },
      formFields: EVERY_TYPE.map((f) => ({ ...f, required: false })),
      createdAt: expect.any(String),
    });
  });

  it('accepts an empty submission when nothing is required, and leaves blank optional answers out', async () => {
    const res = await submit<SubmissionResultDto>(suite.app, suite.tenant.testKey, form.id, { name: '   ', symptoms: [], email: null });
    expect(res.status).toBe(201);
    expect((await api.get<SubmissionDetailDto>(res.headers.location as string)).body.fields).toEqual({});
  });

  it.each([
    ['name', 42],
    ['name', 'x'.repeat(21)],
    ['name', 'nul \u0000 inside'],
    ['notes', ['a']],
    ['notes', 'y'.repeat(20_001)],
    ['email', 'not-an-email'],
    ['email', 12],
    ['phone', '020 7946 0000'],
    ['phone', '+44 12'],
    ['phone', true],
    ['pain', '5'],
    ['pain', -1],
    ['pain', 10.5],
    ['pain', 11],
    ['visit_date', '2027-02-30'],
    ['visit_date', '28/02/2027'],
    ['visit_date', 20270228],
    ['reason', 'Headache'],
    ['reason', ['Check-up']],
    ['symptoms', 'fever'],
    ['symptoms', ['fever', 'rash']],
    ['symptoms', ['fever', 'fever']],
    ['symptoms', [1]],
    ['consent', 'true'],
    ['consent', 1],
    ['consent', {}],
  ])('refuses invalid answer #%# to %s with 400 naming the field', async (field, value) => {
    const res = await submit<Problem>(suite.app, suite.tenant.testKey, form.id, { [field]: value });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toEqual([{ field: `fields.${field}`, message: expect.any(String) }]);
  });

  it.each([
    ['pain', 0],
    ['pain', 10],
    ['visit_date', '2024-02-29'],
    ['phone', '+1 415 555 2671'],
    ['symptoms', ['headache']],
    ['consent', true],
    ['name', 'x'.repeat(20)],
  ])('accepts %s = %j', async (field, value) => {
    expect((await submit(suite.app, suite.tenant.testKey, form.id, { [field]: value })).status).toBe(201);
  });

  it('reports every problem once: required, unknown and invalid answers together', async () => {
    const strict = await createForm(suite.app, suite.tenant.testKey, {
      fields: [
        { id: 'full_name', label: 'Name', type: 'text', required: true },
        { id: 'agree', label: 'I agree', type: 'checkbox', required: true },
        { id: 'age', label: 'Age', type: 'number', min: 0, required: true },
      ],
    });
    const res = await submit<Problem>(suite.app, suite.tenant.testKey, strict.id, { agree: false, age: -3, colour: 'red', shoe_size: 9 });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { field: 'fields.colour', message: 'is not a field of this form' },
      { field: 'fields.shoe_size', message: 'is not a field of this form' },
      { field: 'fields.full_name', message: 'is required' },
      { field: 'fields.agree', message: 'must be checked' },
      { field: 'fields.age', message: 'must not be less than 0' },
    ]);
    expect((await submit(suite.app, suite.tenant.testKey, strict.id, { full_name: 'A', agree: true, age: 0 })).status).toBe(201);
  });

  it.each([
    ['no fields', {}, 'fields'],
    ['fields as a list', { fields: [] }, 'fields'],
    ['fields as a string', { fields: 'name=Ada' }, 'fields'],
    ['patientId as a number', { fields: {}, patientId: 5 }, 'patientId'],
    ['an unknown property', { fields: {}, formVersion: 1 }, 'formVersion'],
  ])('refuses a body with %s', async (_label, body, field) => {
    const res = await api.post<Problem>(`${FORMS}/${form.id}/submit`, body);
    expect(res.status).toBe(400);
    expect(res.body.errors!.map((e) => e.field)).toContain(field);
  });

  it('refuses an inactive form with 409 form_inactive, and accepts again once reactivated', async () => {
    const inactive = await createForm(suite.app, suite.tenant.testKey, { isActive: false });
    const res = await submit<Problem>(suite.app, suite.tenant.testKey, inactive.id, {});
    expect(res.status).toBe(409);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe('form_inactive');
    await api.patch(`${FORMS}/${inactive.id}`, { isActive: true });
    expect((await submit(suite.app, suite.tenant.testKey, inactive.id, {})).status).toBe(201);
    expect((await api.get<FormDto>(`${FORMS}/${inactive.id}`)).body.submissionsCount).toBe(1);
  });

  it('answers 404 for an unknown or malformed form id', async () => {
    expect((await submit(suite.app, suite.tenant.testKey, '00000000-0000-7000-8000-000000000000', {})).status).toBe(404);
    expect((await submit(suite.app, suite.tenant.testKey, 'intake', {})).status).toBe(404);
  });

  describe('the patient link', () => {
    it("links a submission to the caller's patient", async () => {
      const patient = await createPatient(suite.app, suite.tenant.testKey);
      const res = await submit(suite.app, suite.tenant.testKey, form.id, { name: 'Ada' }, { patientId: patient.id.toUpperCase() });
      expect(res.status).toBe(201);
      expect((await api.get<SubmissionDetailDto>(res.headers.location as string)).body.patientId).toBe(patient.id);
    });

    it('treats patientId null as no patient', async () => {
      const res = await submit(suite.app, suite.tenant.testKey, form.id, {}, { patientId: null });
      expect(res.status).toBe(201);
      expect((await api.get<SubmissionDetailDto>(res.headers.location as string)).body.patientId).toBeNull();
    });

    it("refuses an unknown, malformed, other tenant's or other mode's patient with 400 naming patientId", async () => {
      const other = await createTenant(suite.app);
      const foreign = await createPatient(suite.app, other.testKey);
      const live = await createPatient(suite.app, suite.tenant.liveKey);
      const before = (await api.get<FormDto>(`${FORMS}/${form.id}`)).body.submissionsCount;
      for (const patientId of ['00000000-0000-7000-8000-000000000000', 'not-a-uuid', foreign.id, live.id]) {
        const res = await submit<Problem>(suite.app, suite.tenant.testKey, form.id, {}, { patientId });
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([{ field: 'patientId', message: expect.any(String) }]);
      }
      expect((await api.get<FormDto>(`${FORMS}/${form.id}`)).body.submissionsCount).toBe(before);
    });
  });

  it('keeps submissionsCount exact under 20 concurrent submissions', async () => {
    const target = await createForm(suite.app, suite.tenant.testKey);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => submit(suite.app, suite.tenant.testKey, target.id, { pain: i % 11 })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect((await api.get<FormDto>(`${FORMS}/${target.id}`)).body.submissionsCount).toBe(20);
    expect((await api.get<SubmissionListDto>(`${FORMS}/${target.id}/submissions?limit=100`)).body.submissions).toHaveLength(20);
  });

  it('replays a submission sent again with the same Idempotency-Key instead of counting it twice', async () => {
    const target = await createForm(suite.app, suite.tenant.testKey);
    const headers = { 'idempotency-key': `submit-${target.id}` };
    const first = await call<SubmissionResultDto>(suite.app, 'POST', `${FORMS}/${target.id}/submit`, {
      key: suite.tenant.testKey,
      body: { fields: { pain: 1 } },
      headers,
    });
    const again = await call<SubmissionResultDto>(suite.app, 'POST', `${FORMS}/${target.id}/submit`, {
      key: suite.tenant.testKey,
      body: { fields: { pain: 1 } },
      headers,
    });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.submissionId).toBe(first.body.submissionId);
    expect((await api.get<FormDto>(`${FORMS}/${target.id}`)).body.submissionsCount).toBe(1);
  });

  it('reads a submission back with the version it answered after the form was edited', async () => {
    const versioned = await createForm(suite.app, suite.tenant.testKey, {
      fields: [{ id: 'reason', label: 'Reason', type: 'select', options: ['Check-up', 'Back pain'], required: true }],
    });
    const before = await submit<SubmissionResultDto>(suite.app, suite.tenant.testKey, versioned.id, { reason: 'Back pain' });
    const edit = await api.patch<FormDto>(`${FORMS}/${versioned.id}`, {
      fields: [
        { id: 'reason', label: 'Why are you coming?', type: 'select', options: ['Check-up', 'Injury'], required: true },
        { id: 'age', label: 'Age', type: 'number', required: true },
      ],
    });
    expect(edit.body.version).toBe(2);
    const old = await api.get<SubmissionDetailDto>(before.headers.location as string);
    expect(old.body).toMatchObject({
      formVersion: 1,
      fields: { reason: 'Back pain' },
      formFields: [{ id: 'reason', label: 'Reason', type: 'select', options: ['Check-up', 'Back pain'], required: true }],
    });
    // The old answer is refused now, and the new version's answers are kept with version 2.
    expect((await submit(suite.app, suite.tenant.testKey, versioned.id, { reason: 'Back pain', age: 30 })).status).toBe(400);
    const after = await submit<SubmissionResultDto>(suite.app, suite.tenant.testKey, versioned.id, { reason: 'Injury', age: 30 });
    const fresh = await api.get<SubmissionDetailDto>(after.headers.location as string);
    expect(fresh.body).toMatchObject({ formVersion: 2, fields: { reason: 'Injury', age: 30 } });
    expect(fresh.body.formFields).toHaveLength(2);
    // The stored row was not rewritten by the edit.
    const [row] = await dataSource(suite.app).query<{ answers: Record<string, unknown>; form_version: number }[]>(
      `SELECT answers, form_version FROM form_submissions WHERE id = $1`,
      [before.body.submissionId],
    );
    expect(row).toEqual({ answers: { reason: 'Back pain' }, form_version: 1 });
  });

  describe('the submissions list', () => {
    let listed: { id: string };
    let patient: { id: string };
    let ids: string[];

    beforeAll(async () => {
      listed = await createForm(suite.app, suite.tenant.testKey);
      patient = await createPatient(suite.app, suite.tenant.testKey);
      ids = [];
      for (let i = 0; i < 5; i++) {
        const res = await submit<SubmissionResultDto>(
          suite.app,
          suite.tenant.testKey,
          listed.id,
          { pain: i },
          i % 2 ? { patientId: patient.id } : {},
        );
        ids.push(res.body.submissionId);
      }
      // Spread the submissions over days so that from/to have something to cut.
      for (let i = 0; i < 5; i++) {
        await dataSource(suite.app).query(`UPDATE form_submissions SET created_at = $2 WHERE id = $1`, [
          ids[i],
          `2026-03-0${i + 1}T12:00:00.000Z`,
        ]);
      }
    });

    it('pages newest first with a cursor', async () => {
      const first = await api.get<SubmissionListDto>(`${FORMS}/${listed.id}/submissions?limit=3`);
      expect(first.status).toBe(200);
      expect(first.body.submissions.map((s) => s.id)).toEqual([ids[4], ids[3], ids[2]]);
      expect(first.body.submissions[0]).toEqual({
        id: ids[4],
        formId: listed.id,
        formVersion: 1,
        patientId: null,
        fields: { pain: 4 },
        createdAt: '2026-03-05T12:00:00.000Z',
      });
      const second = await api.get<SubmissionListDto>(`${FORMS}/${listed.id}/submissions?limit=3&cursor=${first.body.nextCursor}`);
      expect(second.body.submissions.map((s) => s.id)).toEqual([ids[1], ids[0]]);
      expect(second.body.nextCursor).toBeNull();
    });

    it('filters by patientId, from and to', async () => {
      const get = async (query: string) =>
        (await api.get<SubmissionListDto>(`${FORMS}/${listed.id}/submissions?${query}`)).body.submissions.map((s) => s.id);
      expect(await get(`patientId=${patient.id}`)).toEqual([ids[3], ids[1]]);
      expect(await get('from=2026-03-03')).toEqual([ids[4], ids[3], ids[2]]);
      expect(await get('to=2026-03-02')).toEqual([ids[1], ids[0]]);
      expect(await get('from=2026-03-02T00:00:00Z&to=2026-03-04T11:59:59Z')).toEqual([ids[2], ids[1]]);
      expect(await get(`patientId=${patient.id}&from=2026-03-03`)).toEqual([ids[3]]);
    });

    it.each([['patientId=nope'], ['from=yesterday'], ['to=2026-13-01'], ['from=2026-03-05&to=2026-03-01'], ['limit=101'], ['page=2']])(
      'refuses the query %s with a 400',
      async (query) => {
        const res = await api.get<Problem>(`${FORMS}/${listed.id}/submissions?${query}`);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      },
    );

    it("answers 404 for another form's submission and for an unknown form", async () => {
      expect((await api.get(`${FORMS}/${form.id}/submissions/${ids[0]}`)).status).toBe(404);
      expect((await api.get(`${FORMS}/00000000-0000-7000-8000-000000000000/submissions`)).status).toBe(404);
      expect((await api.get(`${FORMS}/${listed.id}/submissions/nope`)).status).toBe(404);
    });
  });

  describe('bad input is a 4xx naming the field, never a 500', () => {
    it('refuses about 1 MiB of answers with 400 naming the field', async () => {
      const res = await submit<Problem>(suite.app, suite.tenant.testKey, form.id, { notes: 'z'.repeat(1_000_000) });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: 'fields.notes', message: 'must be at most 20000 characters' }]);
    });

    it('refuses more than 1 MiB with 413', async () => {
      const res = await submit<Problem>(suite.app, suite.tenant.testKey, form.id, { notes: 'z'.repeat(1_100_000) });
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('payload_too_large');
    });

    it('refuses 20,000 unknown answers with 400, naming the first ones and counting the rest', async () => {
      const fields = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
      const res = await submit<Problem>(suite.app, suite.tenant.testKey, form.id, fields);
      expect(res.status).toBe(400);
      expect(res.body.errors).toHaveLength(51);
      expect(res.body.errors![0]).toEqual({ field: 'fields.k0', message: 'is not a field of this form' });
      expect(res.body.errors![50]).toEqual({ field: 'fields', message: 'names 19950 more fields that this form does not have' });
    });

    it('refuses NUL characters in an answer and in an unknown key', async () => {
      const nul = await submit<Problem>(suite.app, suite.tenant.testKey, form.id, { notes: 'a\u0000b' });
      expect(nul.status).toBe(400);
      expect(nul.body.errors![0].field).toBe('fields.notes');
      const key = await submit<Problem>(suite.app, suite.tenant.testKey, form.id, { 'no\u0000te': 'x' });
      expect(key.status).toBe(400);
    });

    it('refuses wrong types in every answer at once, one problem each', async () => {
      const res = await submit<Problem>(suite.app, suite.tenant.testKey, form.id, {
        name: {},
        notes: 1,
        email: [],
        phone: {},
        pain: null,
        visit_date: true,
        reason: 3,
        symptoms: { a: 1 },
        consent: 'yes',
      });
      expect(res.status).toBe(400);
      expect(res.body.errors!.map((e) => e.field)).toEqual([
        'fields.name',
        'fields.notes',
        'fields.email',
        'fields.phone',
        'fields.visit_date',
        'fields.reason',
        'fields.symptoms',
        'fields.consent',
      ]);
    });
  });

  describe('scopes and roles', () => {
    it('submit needs forms:write (any role); reading submissions needs forms:read', async () => {
      const staff = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF', scopes: ['forms:write'] });
      const reader = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF', scopes: ['forms:read'] });
      const sent = await submit<SubmissionResultDto>(suite.app, staff, form.id, { pain: 3 });
      expect(sent.status).toBe(201);
      expect((await client(suite.app, staff).get<Problem>(sent.headers.location as string)).body.code).toBe('insufficient_scope');
      expect((await client(suite.app, staff).get<Problem>(`${FORMS}/${form.id}/submissions`)).body.code).toBe('insufficient_scope');
      expect((await submit<Problem>(suite.app, reader, form.id, { pain: 3 })).body.code).toBe('insufficient_scope');
      expect((await client(suite.app, reader).get(sent.headers.location as string)).status).toBe(200);
      expect((await client(suite.app, reader).get(`${FORMS}/${form.id}/submissions`)).status).toBe(200);
    });
  });
});
