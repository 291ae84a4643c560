import { client, createKey, createTenant, type Problem, TestTenant } from '../helpers/app';
import type { SmsPreviewDto, SmsTemplateDto, SmsTemplateListDto } from '../../src/modules/sms/dto/sms-template.dto';
import { useApp } from '../helpers/use-app';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';

const SMS = '/api/v1/sms/templates';
const UNKNOWN_ID = '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e6f';

describe('SMS templates', () => {
  const suite = useApp(NO_RATE_LIMITS);
  let acme: TestTenant;
  let globex: TestTenant;

  beforeAll(async () => {
    acme = suite.tenant;
    globex = await createTenant(suite.app, 'Globex');
    await client(suite.app, acme.testKey).post('/api/v1/settings/practice', { name: 'Acme Clinic' });
  });

  async function createTemplate(key: string, body: Record<string, unknown> = {}): Promise<SmsTemplateDto> {
    const res = await client(suite.app, key).post<SmsTemplateDto>(SMS, { name: 'Reminder', body: 'Hi {{patient.firstName}}', ...body });
    expect([res.status, res.text]).toEqual([201, expect.any(String)]);
    return res.body;
  }

  it('creates, reads, lists and changes a template', async () => {
    const api = client(suite.app, acme.testKey);
    const created = await api.post<SmsTemplateDto>(SMS, {
      name: '  Reminder  ',
      body: 'Hi {{patient.firstName}}, see you {{when}} at {{practice.name}}.',
    });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/api/v1/sms/templates/${created.body.id}`);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Reminder',
      body: 'Hi {{patient.firstName}}, see you {{when}} at {{practice.name}}.',
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: created.body.createdAt,
    });
    expect((await api.get<SmsTemplateDto>(`${SMS}/${created.body.id}`)).body).toEqual(created.body);
    expect((await api.get<SmsTemplateListDto>(SMS)).body.templates.map((t) => t.id)).toContain(created.body.id);

    const patched = await api.patch<SmsTemplateDto>(`${SMS}/${created.body.id}`, { body: 'Bye {{patient.lastName}}' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Reminder', body: 'Bye {{patient.lastName}}' });
    expect(Date.parse(patched.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.updatedAt));
  });

  it('pages newest first', async () => {
    const tenant = await createTenant(suite.app);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createTemplate(tenant.testKey, { name: `T${i}` })).id);
    const api = client(suite.app, tenant.testKey);
    const first = await api.get<SmsTemplateListDto>(`${SMS}?limit=2`);
    expect(first.body.templates.map((t) => t.id)).toEqual([ids[2], ids[1]]);
    const second = await api.get<SmsTemplateListDto>(`${SMS}?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ templates: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
  });

  it('previews with the patient, the practice settings and variables, with GSM-7 segments', async () => {
    const patient = await createPatient(suite.app, acme.testKey, { firstName: 'Ada', email: 'ada@example.com' });
    const template = await createTemplate(acme.testKey, { body: 'Hi {{patient.firstName}} & co, {{practice.name}} at {{when}} costs €5' });
    const res = await client(suite.app, acme.testKey).post<SmsPreviewDto>(`${SMS}/${template.id}/preview`, {
      patientId: patient.id,
      variables: { when: '09:30 <Mon>' },
    });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    // SMS is text: nothing is HTML-escaped. The euro sign is an extension character: 2 septets.
    const body = 'Hi Ada & co, Acme Clinic at 09:30 <Mon> costs €5';
    expect(res.body).toEqual({ patientId: patient.id, body, encoding: 'GSM-7', segments: 1, units: body.length + 1 });
  });

  it('counts a long GSM-7 body in parts of 153 and a UCS-2 body in parts of 67', async () => {
    const api = client(suite.app, acme.testKey);
    const gsm = await createTemplate(acme.testKey, { body: `{{x}}${'a'.repeat(200)}` });
    expect((await api.post<SmsPreviewDto>(`${SMS}/${gsm.id}/preview`, { variables: { x: 'b'.repeat(110) } })).body).toMatchObject({
      encoding: 'GSM-7',
      segments: 3,
      units: 310,
    });
    const ucs = await createTemplate(acme.testKey, { body: 'Привет {{patient.firstName}}! 😀 {{x}}' });
    const res = await api.post<SmsPreviewDto>(`${SMS}/${ucs.id}/preview`, {
      variables: { x: 'ж'.repeat(60), patient: { firstName: 'Ада' } },
    });
    expect(res.body).toEqual({ patientId: null, body: `Привет Ада! 😀 ${'ж'.repeat(60)}`, encoding: 'UCS-2', segments: 2, units: 75 });
  });

  it('refuses bodies that do not compile, naming the field', async () => {
    const api = client(suite.app, acme.testKey);
    for (const body of ['Hi {{patient.firstName', '{{#if x}}open', '{{> partial}}', '{{shout x}}', '{{constructor}}']) {
      const res = await api.post<Problem>(SMS, { name: 'Bad', body });
      expect([body, res.status, res.body.code, res.body.errors]).toEqual([
        body,
        400,
        'validation_failed',
        [{ field: 'body', message: expect.stringMatching(/^does not compile: /) }],
      ]);
    }
    const template = await createTemplate(acme.testKey);
    const patched = await api.patch<Problem>(`${SMS}/${template.id}`, { body: '{{/if}}' });
    expect([patched.status, patched.body.errors?.[0]?.field]).toEqual([400, 'body']);
    expect((await api.get<SmsTemplateDto>(`${SMS}/${template.id}`)).body.body).toBe('Hi {{patient.firstName}}');
  });

  it('refuses bad input with 4xx naming the field', async () => {
    const api = client(suite.app, acme.testKey);
    const template = await createTemplate(acme.testKey);
    const cases: [string, Record<string, unknown>, string][] = [
      ['empty body', { name: 'x', body: '' }, 'body'],
      ['1601 characters', { name: 'x', body: 'a'.repeat(1601) }, 'body'],
      ['NUL in body', { name: 'x', body: 'a\u0000b' }, 'body'],
      ['blank name', { name: '   ', body: 'x' }, 'name'],
      ['missing name', { body: 'x' }, 'name'],
      ['unknown member', { name: 'x', body: 'x', channel: 'sms' }, 'channel'],
    ];
    for (const [what, body, field] of cases) {
      const res = await api.post<Problem>(SMS, body);
      expect([what, res.status, res.body.errors?.map((e) => e.field)]).toEqual([what, 400, [field]]);
    }
    expect((await api.post(SMS, { name: 'x', body: 'a'.repeat(1600) })).status).toBe(201);
    const nullName = await api.patch<Problem>(`${SMS}/${template.id}`, { name: null });
    expect([nullName.status, nullName.body.errors?.[0]?.field]).toEqual([400, 'name']);

    const preview = (body: unknown) => api.post<Problem>(`${SMS}/${template.id}/preview`, body);
    const unknownPatient = await preview({ patientId: UNKNOWN_ID });
    expect([unknownPatient.status, unknownPatient.body.errors]).toEqual([
      400,
      [{ field: 'patientId', message: 'names no patient of this tenant and mode' }],
    ]);
    expect((await preview({ patientId: 'not-an-id' })).body.errors?.[0]?.field).toBe('patientId');
    expect((await preview({ variables: [1] })).body.errors?.[0]?.field).toBe('variables');
    expect((await preview({ variables: { x: 'a\u0000' } })).status).toBe(400);

    expect((await api.get(`${SMS}/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await api.patch(`${SMS}/${UNKNOWN_ID}`, { name: 'x' })).status).toBe(404);
    expect((await api.post(`${SMS}/${UNKNOWN_ID}/preview`, {})).status).toBe(404);
    expect((await api.get(`${SMS}/not-a-uuid`)).status).toBe(404);
  });

  it("cannot see, change or preview another tenant's or mode's templates", async () => {
    const template = await createTemplate(acme.testKey, { name: 'Acme only' });
    const globexPatient = await createPatient(suite.app, globex.testKey);
    for (const key of [globex.testKey, globex.liveKey, acme.liveKey]) {
      const api = client(suite.app, key);
      expect((await api.get<SmsTemplateListDto>(SMS)).body.templates.map((t) => t.id)).not.toContain(template.id);
      expect((await api.get(`${SMS}/${template.id}`)).status).toBe(404);
      expect((await api.patch(`${SMS}/${template.id}`, { name: 'taken over' })).status).toBe(404);
      expect((await api.post(`${SMS}/${template.id}/preview`, {})).status).toBe(404);
    }
    // Acme's template with Globex's patient: the patient is not Acme's, so it names nothing.
    const crossed = await client(suite.app, acme.testKey).post<Problem>(`${SMS}/${template.id}/preview`, { patientId: globexPatient.id });
    expect([crossed.status, crossed.body.errors?.[0]?.field]).toEqual([400, 'patientId']);
    expect((await client(suite.app, acme.testKey).get<SmsTemplateDto>(`${SMS}/${template.id}`)).body.name).toBe('Acme only');
  });

  it('enforces sms:read and sms:write, and patients:read for a preview with a patient', async () => {
    const template = await createTemplate(acme.testKey);
    const patient = await createPatient(suite.app, acme.testKey, { firstName: 'Grace' });
    const readOnly = client(suite.app, await createKey(suite.app, acme.testKey, { scopes: ['sms:read'] }));
    const writeOnly = client(suite.app, await createKey(suite.app, acme.testKey, { scopes: ['sms:write'] }));
    const emailsOnly = client(suite.app, await createKey(suite.app, acme.testKey, { scopes: ['emails:read', 'emails:write'] }));
    const smsAndPatients = client(suite.app, await createKey(suite.app, acme.testKey, { scopes: ['sms:write', 'patients:read'] }));

    expect((await readOnly.get(SMS)).status).toBe(200);
    expect((await readOnly.get(`${SMS}/${template.id}`)).status).toBe(200);
    const denied = await readOnly.post<Problem>(SMS, { name: 'x', body: 'y' });
    expect([denied.status, denied.body.code]).toEqual([403, 'insufficient_scope']);
    expect((await readOnly.patch(`${SMS}/${template.id}`, { name: 'x' })).status).toBe(403);
    expect((await readOnly.post(`${SMS}/${template.id}/preview`, {})).status).toBe(403);

    expect((await writeOnly.get(SMS)).status).toBe(403);
    expect((await writeOnly.post(SMS, { name: 'x', body: 'y' })).status).toBe(201);
    expect((await writeOnly.post<SmsPreviewDto>(`${SMS}/${template.id}/preview`, {})).body).toMatchObject({ body: 'Hi ' });
    const noPatients = await writeOnly.post<Problem & { requiredScope: string }>(`${SMS}/${template.id}/preview`, {
      patientId: patient.id,
    });
    expect([noPatients.status, noPatients.body.code, noPatients.body.requiredScope]).toEqual([403, 'insufficient_scope', 'patients:read']);
    expect((await smsAndPatients.post<SmsPreviewDto>(`${SMS}/${template.id}/preview`, { patientId: patient.id })).body).toMatchObject({
      body: 'Hi Grace',
    });

    for (const res of [await emailsOnly.get(SMS), await emailsOnly.post(SMS, { name: 'x', body: 'y' })]) expect(res.status).toBe(403);
  });
});
