import { client, createKey, createTenant, type Problem, TestTenant } from '../helpers/app';
import type { FormDto, FormListDto } from '../../src/modules/forms/dto/form.dto';
import { useApp } from '../helpers/use-app';
import { createForm, EVERY_TYPE, FORMS } from '../helpers/forms';
import { NO_RATE_LIMITS } from '../helpers/patients';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('Forms: definitions', () => {
  let api: ReturnType<typeof client>;

  const suite = useApp(NO_RATE_LIMITS);

  beforeAll(async () => {
    api = suite.api();
  });

  it('creates a form with every field type, answering 201 with Location, version 1 and a slug from the name', async () => {
    const res = await api.post<FormDto>(FORMS, { name: '  Nouvel Élève: Intake!  ', description: 'For new patients', fields: EVERY_TYPE });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`${FORMS}/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Nouvel Élève: Intake!',
      slug: 'nouvel-eleve-intake',
      description: 'For new patients',
      fields: EVERY_TYPE.map((f) => ({ ...f, required: false })),
      isActive: true,
      version: 1,
      submissionsCount: 0,
      createdAt: expect.stringMatching(ISO),
      updatedAt: res.body.createdAt,
    });
    const got = await api.get<FormDto>(res.headers.location as string);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('keeps a given slug, and answers 409 slug_taken for a taken one, given or derived', async () => {
    const first = await api.post<FormDto>(FORMS, { name: 'Consent', slug: 'consent-2026', fields: [] });
    expect(first.status).toBe(201);
    expect(first.body.slug).toBe('consent-2026');
    const given = await api.post<Problem>(FORMS, { name: 'Other', slug: 'consent-2026', fields: [] });
    expect(given.status).toBe(409);
    expect(given.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(given.body).toMatchObject({ code: 'slug_taken', errors: [{ field: 'slug', message: expect.any(String) }] });
    await createForm(suite.app, suite.tenant.testKey, { name: 'Feedback' });
    const derived = await api.post<Problem>(FORMS, { name: 'FEEDBACK', fields: [] });
    expect(derived.status).toBe(409);
    expect(derived.body.code).toBe('slug_taken');
  });

  it('settles concurrent creates of one slug with exactly one 201', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => api.post(FORMS, { name: 'Race', slug: 'race', fields: [] })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
  });

  it('derives "form" from a name without letters or digits', async () => {
    const res = await api.post<FormDto>(FORMS, { name: '¿¡ — !?', fields: [] });
    expect(res.status).toBe(201);
    expect(res.body.slug).toBe('form');
  });

  it.each([
    ['a missing name', { fields: [] }, 'name'],
    ['a blank name', { name: '   ', fields: [] }, 'name'],
    ['a name of the wrong type', { name: 5, fields: [] }, 'name'],
    ['a malformed slug', { name: 'x', slug: 'Not A Slug', fields: [] }, 'slug'],
    ['missing fields', { name: 'x' }, 'fields'],
    ['fields that are not a list', { name: 'x', fields: { id: 'a' } }, 'fields'],
    ['isActive as a string', { name: 'x', isActive: 'true', fields: [] }, 'isActive'],
    ['an unknown property', { name: 'x', fields: [], colour: 'red' }, 'colour'],
    ['a bad field id', { name: 'x', fields: [{ id: 'Bad-Id', label: 'L', type: 'text' }] }, 'fields.0.id'],
    ['an unknown field type', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'colour' }] }, 'fields.0.type'],
    ['a missing label', { name: 'x', fields: [{ id: 'a', type: 'text' }] }, 'fields.0.label'],
    ['required as a string', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'text', required: 'yes' }] }, 'fields.0.required'],
    ['min as a string', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'number', min: '3' }] }, 'fields.0.min'],
    ['an unknown field member', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'text', colour: 1 }] }, 'fields.0.colour'],
    [
      'duplicate field ids',
      {
        name: 'x',
        fields: [
          { id: 'a', label: 'L', type: 'text' },
          { id: 'a', label: 'M', type: 'date' },
        ],
      },
      'fields.1.id',
    ],
    ['a select without options', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'select' }] }, 'fields.0.options'],
    [
      'a multiselect with empty options',
      { name: 'x', fields: [{ id: 'a', label: 'L', type: 'multiselect', options: [] }] },
      'fields.0.options',
    ],
    ['repeated options', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'select', options: ['a', 'a'] }] }, 'fields.0.options'],
    ['an empty option', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'select', options: ['a', ''] }] }, 'fields.0.options'],
    ['options that are not strings', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'select', options: [1, 2] }] }, 'fields.0.options'],
    ['options on a text field', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'text', options: ['a'] }] }, 'fields.0.options'],
    ['min on a text field', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'text', min: 1 }] }, 'fields.0.min'],
    ['min above max', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'number', min: 5, max: 1 }] }, 'fields.0.min'],
    ['maxLength on a date field', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'date', maxLength: 3 }] }, 'fields.0.maxLength'],
    ['maxLength over the text cap', { name: 'x', fields: [{ id: 'a', label: 'L', type: 'text', maxLength: 5000 }] }, 'fields.0.maxLength'],
  ])('refuses %s with 400 naming the member', async (_label, body, field) => {
    const res = await api.post<Problem>(FORMS, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors!.map((e) => e.field)).toContain(field);
  });

  it('accepts 200 fields and refuses 201', async () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `q${i}`, label: `Question ${i}`, type: 'text' }));
    expect((await api.post(FORMS, { name: 'Long', fields: fields(200) })).status).toBe(201);
    const res = await api.post<Problem>(FORMS, { name: 'Too long', fields: fields(201) });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'fields', message: expect.stringMatching(/200/) }]);
  });

  it('refuses 10,000 options with a 400 naming the field', async () => {
    const options = Array.from({ length: 10_000 }, (_, i) => `option ${i}`);
    const res = await api.post<Problem>(FORMS, { name: 'Huge', fields: [{ id: 'a', label: 'L', type: 'select', options }] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ field: 'fields.0.options', message: expect.stringMatching(/500/) }]);
  });

  it('refuses wrong types in the field list without a 500', async () => {
    for (const fields of [[null], [1], ['text'], [[]], [{ id: null, label: null, type: null }]]) {
      const res = await api.post<Problem>(FORMS, { name: 'x', fields });
      expect(res.status).toBe(400);
      expect(res.body.errors![0].field).toMatch(/^fields/);
    }
  });

  describe('list', () => {
    let other: TestTenant;
    let ids: string[];

    beforeAll(async () => {
      other = await createTenant(suite.app);
      ids = [];
      for (let i = 0; i < 5; i++) ids.push((await createForm(suite.app, other.testKey, { isActive: i % 2 === 0 })).id);
    });

    it('pages newest first with a cursor', async () => {
      const lister = client(suite.app, other.testKey);
      const first = await lister.get<FormListDto>(`${FORMS}?limit=2`);
      expect(first.status).toBe(200);
      expect(first.body.forms.map((f) => f.id)).toEqual([ids[4], ids[3]]);
      const second = await lister.get<FormListDto>(`${FORMS}?limit=2&cursor=${first.body.nextCursor}`);
      const third = await lister.get<FormListDto>(`${FORMS}?limit=2&cursor=${second.body.nextCursor}`);
      expect([...second.body.forms, ...third.body.forms].map((f) => f.id)).toEqual([ids[2], ids[1], ids[0]]);
      expect(third.body.nextCursor).toBeNull();
    });

    it('filters by isActive', async () => {
      const lister = client(suite.app, other.testKey);
      const active = await lister.get<FormListDto>(`${FORMS}?isActive=true`);
      expect(active.body.forms.map((f) => f.id)).toEqual([ids[4], ids[2], ids[0]]);
      const inactive = await lister.get<FormListDto>(`${FORMS}?isActive=false`);
      expect(inactive.body.forms.map((f) => f.id)).toEqual([ids[3], ids[1]]);
    });

    it.each([['isActive=yes'], ['limit=0'], ['limit=abc'], ['cursor=%00%00'], ['cursor=bm90LWEtY3Vyc29y'], ['colour=red']])(
      'refuses the query %s with a 400',
      async (query) => {
        const res = await client(suite.app, other.testKey).get<Problem>(`${FORMS}?${query}`);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_failed');
      },
    );
  });

  describe('PATCH', () => {
    it('changes name, description and isActive without a new version', async () => {
      const form = await createForm(suite.app, suite.tenant.testKey, { description: 'old' });
      const res = await api.patch<FormDto>(`${FORMS}/${form.id}`, { name: 'Renamed', description: null, isActive: false });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ name: 'Renamed', slug: form.slug, description: null, isActive: false, version: 1 });
      expect(res.body.updatedAt >= form.updatedAt).toBe(true);
      expect((await api.get<FormDto>(`${FORMS}/${form.id}`)).body).toEqual(res.body);
    });

    it('makes a new version for changed fields only', async () => {
      const form = await createForm(suite.app, suite.tenant.testKey);
      const same = await api.patch<FormDto>(`${FORMS}/${form.id}`, { fields: EVERY_TYPE });
      expect(same.body.version).toBe(1);
      const changed = await api.patch<FormDto>(`${FORMS}/${form.id}`, {
        fields: [{ id: 'only', label: 'Only', type: 'date', required: true }],
      });
      expect(changed.status).toBe(200);
      expect(changed.body.version).toBe(2);
      expect(changed.body.fields).toEqual([{ id: 'only', label: 'Only', type: 'date', required: true }]);
    });

    it('gives concurrent field edits distinct versions', async () => {
      const form = await createForm(suite.app, suite.tenant.testKey);
      const edits = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          api.patch<FormDto>(`${FORMS}/${form.id}`, { fields: [{ id: `f${i}`, label: 'F', type: 'text' }] }),
        ),
      );
      expect(edits.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(edits.map((r) => r.body.version).sort()).toEqual([2, 3, 4, 5, 6]);
    });

    it.each([
      [{ name: null }, 'name'],
      [{ isActive: null }, 'isActive'],
      [{ fields: null }, 'fields'],
      [{ slug: 'new-slug' }, 'slug'],
      [{ fields: [{ id: 'a', label: 'L', type: 'select' }] }, 'fields.0.options'],
    ])('refuses %j with a 400 naming the member', async (body, field) => {
      const form = await createForm(suite.app, suite.tenant.testKey);
      const res = await api.patch<Problem>(`${FORMS}/${form.id}`, body);
      expect(res.status).toBe(400);
      expect(res.body.errors!.map((e) => e.field)).toContain(field);
    });

    it('answers 404 for an unknown or malformed id', async () => {
      expect((await api.patch(`${FORMS}/00000000-0000-7000-8000-000000000000`, { name: 'x' })).status).toBe(404);
      expect((await api.patch(`${FORMS}/not-an-id`, { name: 'x' })).status).toBe(404);
      expect((await api.get<Problem>(`${FORMS}/not-an-id`)).body.code).toBe('not_found');
    });
  });

  describe('scopes and roles', () => {
    it('POST and PATCH need forms:write and OWNER or ADMIN; reads need forms:read', async () => {
      const form = await createForm(suite.app, suite.tenant.testKey);
      const staff = client(
        suite.app,
        await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF', scopes: ['forms:read', 'forms:write'] }),
      );
      const admin = client(
        suite.app,
        await createKey(suite.app, suite.tenant.testKey, { role: 'ADMIN', scopes: ['forms:read', 'forms:write'] }),
      );
      const readOnly = client(suite.app, await createKey(suite.app, suite.tenant.testKey, { role: 'OWNER', scopes: ['forms:read'] }));
      const noForms = client(suite.app, await createKey(suite.app, suite.tenant.testKey, { role: 'OWNER', scopes: ['patients:read'] }));

      const staffCreate = await staff.post<Problem>(FORMS, { name: 'Staff form', fields: [] });
      expect([staffCreate.status, staffCreate.body.code]).toEqual([403, 'insufficient_role']);
      expect((await staff.patch<Problem>(`${FORMS}/${form.id}`, { name: 'x' })).body.code).toBe('insufficient_role');
      expect((await admin.post(FORMS, { name: 'Admin form', fields: [] })).status).toBe(201);
      expect((await admin.patch(`${FORMS}/${form.id}`, { name: 'By admin' })).status).toBe(200);

      const readOnlyCreate = await readOnly.post<Problem>(FORMS, { name: 'x', fields: [] });
      expect([readOnlyCreate.status, readOnlyCreate.body.code]).toEqual([403, 'insufficient_scope']);
      expect((await readOnly.get(FORMS)).status).toBe(200);
      expect((await readOnly.get(`${FORMS}/${form.id}`)).status).toBe(200);
      expect((await noForms.get<Problem>(FORMS)).body.code).toBe('insufficient_scope');
      expect((await noForms.get<Problem>(`${FORMS}/${form.id}`)).body.code).toBe('insufficient_scope');
      expect((await client(suite.app).get(FORMS)).status).toBe(401);
    });
  });
});
