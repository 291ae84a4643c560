import { client, createKey, createTenant, type Problem, type TestResponse, TestTenant } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { eventually } from '../helpers/eventually';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import type { PatientDto } from '../../src/modules/patients';
import type { AuditLogDto } from '../../src/modules/audit/dto/audit-entry.dto';
import type { EmailMessageListDto } from '../../src/modules/email/dto/email-message.dto';
import type { EmailPreviewDto, EmailTemplateDto, EmailTemplateListDto } from '../../src/modules/email/dto/email-template.dto';
import type { EmailSendAcceptedDto } from '../../src/modules/email/dto/send-email.dto';

const TEMPLATES = '/api/v1/emails/templates';
const SEND = '/api/v1/emails/send';
const MESSAGES = '/api/v1/emails/messages';
const UNKNOWN = '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40';

/** The fields a 400 names. */
function fieldsOf(res: TestResponse<unknown>): string[] {
  expect(res.status).toBe(400);
  expect((res.body as Problem).code).toBe('validation_failed');
  return (res.body as Problem).errors!.map((e) => e.field);
}

describe('Email API: validation, isolation between tenants and modes, scopes, audit', () => {
  let other: TestTenant;
  let template: EmailTemplateDto;
  let patient: PatientDto;

  // No workers: these tests look at what the API accepts and stores.
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off', REDIS_PREFIX: `${process.env.REDIS_PREFIX}:email-api` });

  beforeAll(async () => {
    other = await createTenant(suite.app);
    patient = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Grace', email: 'grace@example.test' });
    template = (
      await suite.api().post<EmailTemplateDto>(TEMPLATES, { name: 'Welcome', subject: 'Welcome {{patient.firstName}}', textContent: 'Hi' })
    ).body;
  });

  describe('templates', () => {
    it('creates, reads, lists (cursor pages), changes and previews', async () => {
      const api = suite.api();
      const created = await api.post<EmailTemplateDto>(TEMPLATES, {
        name: '  Reminder ',
        subject: 'Hi {{patient.firstName}}',
        htmlContent: '<b>{{practice.name}}</b> {{when}}',
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'Reminder', htmlContent: '<b>{{practice.name}}</b> {{when}}', textContent: null });
      expect((await api.get<EmailTemplateDto>(`${TEMPLATES}/${created.body.id}`)).body).toEqual(created.body);

      const page1 = await api.get<EmailTemplateListDto>(`${TEMPLATES}?limit=1`);
      expect(page1.body.templates).toHaveLength(1);
      expect(page1.body.templates[0].id).toBe(created.body.id); // newest first
      const page2 = await api.get<EmailTemplateListDto>(`${TEMPLATES}?limit=1&cursor=${page1.body.nextCursor}`);
      expect(page2.body.templates[0].id).toBe(template.id);

      const patched = await api.patch(`${TEMPLATES}/${created.body.id}`, { textContent: 'Plain {{when}}', htmlContent: null });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ name: 'Reminder', htmlContent: null, textContent: 'Plain {{when}}' });

      await api.post('/api/v1/settings/practice', { name: 'Acme & Sons' });
      const preview = await api.post(`${TEMPLATES}/${created.body.id}/preview`, { patientId: patient.id, variables: { when: '<today>' } });
      expect(preview.status).toBe(200);
      expect(preview.body).toEqual({ patientId: patient.id, subject: 'Hi Grace', htmlContent: null, textContent: 'Plain <today>' });
      expect(preview.headers['cache-control']).toBe('no-store');
      const html = await api.post<EmailTemplateDto>(TEMPLATES, {
        name: 'H',
        subject: 'S',
        htmlContent: '<p>{{practice.name}} {{patient.firstName}} {{when}}</p>',
      });
      const sample = await api.post<EmailPreviewDto>(`${TEMPLATES}/${html.body.id}/preview`, {
        variables: { when: '<b>', patient: { firstName: 'Sam' } },
      });
      expect(sample.body.htmlContent).toBe('<p>Acme &amp; Sons Sam &lt;b&gt;</p>');
    });

    it('refuses bad templates with a 400 naming each field', async () => {
      const api = suite.api();
      expect(fieldsOf(await api.post(TEMPLATES, { name: 'x', subject: 'S' }))).toEqual(['htmlContent']);
      expect(fieldsOf(await api.post(TEMPLATES, { name: 'x', subject: 'S', htmlContent: '{{#if}}oops{{/if}}' }))).toEqual(['htmlContent']);
      const broken = await api.post<Problem>(TEMPLATES, {
        name: 'x',
        subject: 'Hi {{patient.firstName',
        textContent: '{{#each}}',
        htmlContent: '{{{raw}}}',
      });
      expect(fieldsOf(broken).sort()).toEqual(['htmlContent', 'subject', 'textContent']);
      expect(broken.body.errors![0].message).toMatch(/does not compile/);
      expect(fieldsOf(await api.post(TEMPLATES, { name: 'a\u0000b', subject: 'S', textContent: 'x' }))).toEqual(['name']);
      expect(fieldsOf(await api.post(TEMPLATES, { name: '   ', subject: 'S', textContent: 'x' }))).toEqual(['name']);
      expect(fieldsOf(await api.post(TEMPLATES, { name: 'x', subject: 'S', textContent: 'x', extra: 1 }))).toEqual(['extra']);
      expect(fieldsOf(await api.post(TEMPLATES, { name: 'x', subject: 'S', textContent: 'x'.repeat(100_001) }))).toEqual(['textContent']);
      expect(fieldsOf(await api.patch(`${TEMPLATES}/${template.id}`, { textContent: null }))).toEqual(['htmlContent']);
      expect(fieldsOf(await api.patch(`${TEMPLATES}/${template.id}`, { subject: '{{constructor.name}}' }))).toEqual(['subject']);
      expect(fieldsOf(await api.patch(`${TEMPLATES}/${template.id}`, { name: null }))).toEqual(['name']);
      expect(fieldsOf(await api.post(`${TEMPLATES}/${template.id}/preview`, { patientId: UNKNOWN }))).toEqual(['patientId']);
      expect(fieldsOf(await api.post(`${TEMPLATES}/${template.id}/preview`, { variables: [] }))).toEqual(['variables']);
      expect((await api.get<EmailTemplateDto>(`${TEMPLATES}/${template.id}`)).body.textContent).toBe('Hi'); // nothing changed
    });

    it('answers 404 for unknown and malformed ids', async () => {
      const api = suite.api();
      expect((await api.get(`${TEMPLATES}/${UNKNOWN}`)).status).toBe(404);
      expect((await api.get(`${TEMPLATES}/not-a-uuid`)).status).toBe(404);
      expect((await api.patch(`${TEMPLATES}/${UNKNOWN}`, { name: 'x' })).status).toBe(404);
      expect((await api.post(`${TEMPLATES}/${UNKNOWN}/preview`, {})).status).toBe(404);
      expect((await api.get(`${MESSAGES}/${UNKNOWN}`)).status).toBe(404);
    });
  });

  describe('sending', () => {
    it('queues a send and reads it back with its rendered content', async () => {
      const api = suite.api();
      const sent = await api.post<EmailSendAcceptedDto>(SEND, { patientId: patient.id, templateId: template.id });
      expect(sent.status).toBe(202);
      const message = await api.get(`${MESSAGES}/${sent.body.messageId}`);
      expect(message.body).toMatchObject({
        status: 'queued',
        to: 'grace@example.test',
        subject: 'Welcome Grace',
        textContent: 'Hi',
        attempts: 0,
      });
      expect(message.headers['cache-control']).toBe('no-store');
      const byPatient = await api.get<EmailMessageListDto>(`${MESSAGES}?patientId=${patient.id}`);
      expect(byPatient.body.messages.map((m) => m.id)).toEqual([sent.body.messageId]);
      expect((await api.get<EmailMessageListDto>(`${MESSAGES}?sequenceId=${UNKNOWN}`)).body.messages).toEqual([]);
    });

    it('refuses bad sends with a 400 naming the field', async () => {
      const api = suite.api();
      const noEmail = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'NoMail' });
      const othersPatient = await createPatient(suite.app, other.testKey, { email: 'x@example.test' });
      const othersTemplate = (
        await client(suite.app, other.testKey).post<EmailTemplateDto>(TEMPLATES, { name: 'O', subject: 'O', textContent: 'o' })
      ).body;
      const cases: [Record<string, unknown>, string][] = [
        [{ subject: 'S', textContent: 'x' }, 'patientId'],
        [{ patientId: patient.id, to: 'a@example.test', subject: 'S', textContent: 'x' }, 'patientId'],
        [{ to: 'not-an-email', subject: 'S', textContent: 'x' }, 'to'],
        [{ patientId: 'nope', subject: 'S', textContent: 'x' }, 'patientId'],
        [{ patientId: UNKNOWN, subject: 'S', textContent: 'x' }, 'patientId'],
        [{ patientId: othersPatient.id, subject: 'S', textContent: 'x' }, 'patientId'],
        [{ patientId: noEmail.id, subject: 'S', textContent: 'x' }, 'patientId'],
        [{ to: 'a@example.test', templateId: UNKNOWN }, 'templateId'],
        [{ to: 'a@example.test', templateId: othersTemplate.id }, 'templateId'],
        [{ to: 'a@example.test', templateId: template.id, subject: 'S' }, 'subject'],
        [{ to: 'a@example.test', textContent: 'x' }, 'subject'],
        [{ to: 'a@example.test', subject: 'S' }, 'htmlContent'],
        [{ to: 'a@example.test', subject: 'S\u0000', textContent: 'x' }, 'subject'],
        [{ to: 'a@example.test', subject: '{{#if}}', textContent: 'x' }, 'subject'],
        [{ to: 'a@example.test', subject: 'S', htmlContent: '{{{unsafe}}}' }, 'htmlContent'],
        [{ to: 'a@example.test', subject: 'S', textContent: 'x', templateVariables: 'x' }, 'templateVariables'],
        [{ to: 'a@example.test', subject: 'S', textContent: 'x', unknown: true }, 'unknown'],
      ];
      for (const [body, field] of cases) {
        const res = await api.post<Problem>(SEND, body);
        expect({ body, status: res.status, fields: res.body.errors?.map((e) => e.field) }).toEqual({
          body,
          status: 400,
          fields: [field],
        });
      }
      expect(fieldsOf(await api.get(`${MESSAGES}?status=lost`))).toEqual(['status']);
      expect(fieldsOf(await api.get(`${MESSAGES}?patientId=nope`))).toEqual(['patientId']);
    });
  });

  it("cannot see another tenant's or mode's templates and messages", async () => {
    const sent = (await suite.api().post<EmailSendAcceptedDto>(SEND, { to: 'iso@example.test', subject: 'Iso', textContent: 'x' })).body;
    for (const key of [other.testKey, other.liveKey, suite.tenant.liveKey]) {
      const api = client(suite.app, key);
      expect((await api.get(`${TEMPLATES}/${template.id}`)).status).toBe(404);
      expect((await api.patch(`${TEMPLATES}/${template.id}`, { name: 'stolen' })).status).toBe(404);
      expect((await api.post(`${TEMPLATES}/${template.id}/preview`, {})).status).toBe(404);
      expect((await api.get(`${MESSAGES}/${sent.messageId}`)).status).toBe(404);
      expect((await api.get<EmailTemplateListDto>(`${TEMPLATES}?limit=100`)).body.templates.map((t) => t.id)).not.toContain(template.id);
      expect((await api.get<EmailMessageListDto>(`${MESSAGES}?limit=100`)).body.messages.map((m) => m.id)).not.toContain(sent.messageId);
      expect(fieldsOf(await api.post(SEND, { to: 'a@example.test', templateId: template.id }))).toEqual(['templateId']);
      expect(fieldsOf(await api.post(SEND, { patientId: patient.id, subject: 'S', textContent: 'x' }))).toEqual(['patientId']);
    }
    expect((await suite.api().get<EmailTemplateDto>(`${TEMPLATES}/${template.id}`)).body.name).toBe('Welcome');
  });

  it('enforces emails:read and emails:write', async () => {
    const readOnly = client(suite.app, await createKey(suite.app, suite.tenant.testKey, { scopes: ['emails:read'] }));
    const writeOnly = client(suite.app, await createKey(suite.app, suite.tenant.testKey, { scopes: ['emails:write'] }));
    const neither = client(suite.app, await createKey(suite.app, suite.tenant.testKey, { scopes: ['patients:read'], role: 'STAFF' }));
    const send = { to: 'a@example.test', subject: 'S', textContent: 'x' };
    for (const api of [readOnly, neither]) {
      for (const res of [
        await api.post<Problem>(SEND, send),
        await api.post<Problem>(TEMPLATES, { name: 'x', subject: 'S', textContent: 'x' }),
        await api.patch<Problem>(`${TEMPLATES}/${template.id}`, { name: 'x' }),
        await api.post<Problem>(`${TEMPLATES}/${template.id}/preview`, {}),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.code).toBe('insufficient_scope');
      }
    }
    for (const api of [writeOnly, neither]) {
      for (const res of [
        await api.get<Problem>(TEMPLATES),
        await api.get<Problem>(`${TEMPLATES}/${template.id}`),
        await api.get<Problem>(MESSAGES),
      ]) {
        expect(res.status).toBe(403);
        expect(res.body.detail).toMatch(/emails:read/);
      }
    }
    expect((await readOnly.get(TEMPLATES)).status).toBe(200);
    expect((await writeOnly.post(SEND, send)).status).toBe(202);
    expect((await client(suite.app).get(TEMPLATES)).status).toBe(401);
  });

  it('audits reading messages as patient data', async () => {
    const api = suite.api();
    const sent = (await api.post<EmailSendAcceptedDto>(SEND, { patientId: patient.id, subject: 'A', textContent: 'x' })).body;
    await api.get(`${MESSAGES}/${sent.messageId}`);
    await eventually(async () => {
      const log = await api.get<AuditLogDto>(`/api/v1/settings/audit-log?resourceId=${sent.messageId}`);
      expect(log.body.entries.map((e) => e.action)).toContain('email_message.read');
    });
  });
});
