import { client, createTenant, type Problem, TestTenant } from '../helpers/app';
import { createForm, FORMS, submit } from '../helpers/forms';
import { NO_RATE_LIMITS } from '../helpers/patients';
import { useApp } from '../helpers/use-app';

/** Every forms route, called with a key that must not see the record: 404 (or absent from lists), nothing changed. */
describe('Forms: tenant and mode isolation', () => {
  const suite = useApp(NO_RATE_LIMITS);
  let acme: TestTenant;
  let globex: TestTenant;
  let form: { id: string; slug: string };
  let submissionUrl: string;

  beforeAll(async () => {
    acme = suite.tenant;
    globex = await createTenant(suite.app, 'Globex');
    form = await createForm(suite.app, acme.testKey, { name: 'Acme intake' });
    submissionUrl = (await submit(suite.app, acme.testKey, form.id, { pain: 2 })).headers.location as string;
  });

  const outsiders = (): [string, string][] => [
    ['another tenant (same mode)', globex.testKey],
    ['another tenant (other mode)', globex.liveKey],
    ['the same tenant in the other mode', acme.liveKey],
  ];

  it("cannot see another tenant's forms, nor the other mode's", async () => {
    for (const [, key] of outsiders()) {
      const api = client(suite.app, key);
      expect((await api.get<{ forms: { id: string }[] }>(FORMS)).body.forms.map((f) => f.id)).not.toContain(form.id);
      const one = await api.get<Problem>(`${FORMS}/${form.id}`);
      expect([one.status, one.body.code]).toEqual([404, 'not_found']);
    }
  });

  it("cannot change, submit to or read the submissions of another tenant's or mode's form", async () => {
    for (const [who, key] of outsiders()) {
      const api = client(suite.app, key);
      const statuses = [
        (await api.patch(`${FORMS}/${form.id}`, { name: `renamed by ${who}`, isActive: false })).status,
        (await submit(suite.app, key, form.id, { pain: 3 })).status,
        (await api.get(`${FORMS}/${form.id}/submissions`)).status,
        (await api.get(submissionUrl)).status,
      ];
      expect([who, statuses]).toEqual([who, [404, 404, 404, 404]]);
    }
    const own = await client(suite.app, acme.testKey).get(`${FORMS}/${form.id}`);
    expect(own.body).toMatchObject({ name: 'Acme intake', isActive: true, submissionsCount: 1 });
  });

  it("cannot read a submission through its own form's id", async () => {
    const globexForm = await createForm(suite.app, globex.testKey);
    const submissionId = submissionUrl.split('/').pop();
    expect((await client(suite.app, globex.testKey).get(`${FORMS}/${globexForm.id}/submissions/${submissionId}`)).status).toBe(404);
    expect(
      (await client(suite.app, globex.testKey).get<{ submissions: unknown[] }>(`${FORMS}/${globexForm.id}/submissions`)).body.submissions,
    ).toEqual([]);
  });

  it('keeps slugs unique per tenant and mode only', async () => {
    expect((await client(suite.app, globex.testKey).post(FORMS, { name: 'x', slug: form.slug, fields: [] })).status).toBe(201);
    expect((await client(suite.app, acme.liveKey).post(FORMS, { name: 'x', slug: form.slug, fields: [] })).status).toBe(201);
    expect((await client(suite.app, acme.testKey).post(FORMS, { name: 'x', slug: form.slug, fields: [] })).status).toBe(409);
  });
});
