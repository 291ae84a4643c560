import { call, createKey, createTenant, type Problem, TestTenant, type TestResponse } from '../helpers/app';
import type { EventPageOf } from '../helpers/events';
import type { MeDto } from '../../src/modules/api-keys/dto/me.dto';
import type { PatientAccessDto, PatientAccessLogDto } from '../../src/modules/audit/dto/patient-access.dto';
import type { EmailTemplateDto } from '../../src/modules/email/dto/email-template.dto';
import type { EmailSendAcceptedDto } from '../../src/modules/email/dto/send-email.dto';
import type { SubmissionResultDto } from '../../src/modules/forms/dto/submission.dto';
import type { PatientDto, PatientSummaryDto } from '../../src/modules/patients';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import { useApp } from '../helpers/use-app';
import { dayByDay } from '../helpers/dates';
import { eventually } from '../helpers/eventually';
import { createForm, FORMS } from '../helpers/forms';
import { createPatient, NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';
import { createProvider, everyDay, SCHEDULING } from '../helpers/scheduling';
import { AuditWriter } from '../../src/modules/audit/audit.writer';

const accessLog = (patientId: string, query = ''): string => `${PATIENTS}/${patientId}/access-log${query}`;

/**
 * GET /patients/{id}/access-log: every way a patient's data leaves the API shows in that patient's log
 * (and only there), never another tenant's or mode's reads; the log itself is OWNER/ADMIN with settings:read.
 */
describe('Patient access log', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off', REDIS_PREFIX: `${process.env.REDIS_PREFIX}:access-log` });
  let other: TestTenant;
  let ownerKeyId: string;
  const nextDay = dayByDay();

  beforeAll(async () => {
    other = await createTenant(suite.app);
    ownerKeyId = (await suite.api().get<MeDto>('/api/v1/me')).body.key.id;
  });

  /** The patient's log once the writer has flushed, with at least `atLeast` entries (every page followed). */
  async function logOf(patientId: string, atLeast: number, key = suite.tenant.testKey): Promise<PatientAccessDto[]> {
    return eventually(async () => {
      await suite.app.get(AuditWriter).flush();
      const all: PatientAccessDto[] = [];
      let cursor: string | null = null;
      do {
        const res: TestResponse<PatientAccessLogDto> = await suite
          .api(key)
          .get<PatientAccessLogDto>(accessLog(patientId, `?limit=100${cursor ? `&cursor=${cursor}` : ''}`));
        expect(res.status).toBe(200);
        all.push(...res.body.entries);
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(all.length).toBeGreaterThanOrEqual(atLeast);
      return all;
    });
  }

  it("lists every answer that carried the patient's data, and only those, newest first", async () => {
    const api = suite.api();
    const ada = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.test' });
    const bob = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Bob', lastName: 'Bystander' });
    const provider = await createProvider(suite.app, suite.tenant.testKey, { timezone: 'UTC', workingHours: everyDay() });
    const form = await createForm(suite.app, suite.tenant.testKey);
    const template = (
      await api.post<EmailTemplateDto>('/api/v1/emails/templates', { name: 'Hi', subject: 'Hi {{patient.firstName}}', textContent: 'Hi' })
    ).body;

    const expected: string[] = ['patient.create'];
    /** Expects the answer's status; an answer that carries patient data (`carries`) must show in the log. */
    const expect200 = async <T>(action: string, res: Promise<TestResponse<T>>, status = 200, carries = true): Promise<TestResponse<T>> => {
      const answer = await res;
      expect({ action, status: answer.status }).toEqual({ action, status });
      if (carries) expected.push(action);
      return answer;
    };
    await expect200('patient.read', api.get(`${PATIENTS}/${ada.id}`));
    await expect200('patient.update', api.put(`${PATIENTS}/${ada.id}`, { gender: 'female' }));
    await expect200('patient.list', api.get(`${PATIENTS}?limit=100`));
    await expect200('patient.list', api.get(`${PATIENTS}?search=lovelace`));
    await expect200('patient.clinical.read', api.get(`${PATIENTS}/${ada.id}/clinical`));
    const booked = await expect200(
      'appointment.create',
      api.post<AppointmentDto>(`${SCHEDULING}/book`, { patientId: ada.id, providerId: provider.id, datetime: `${nextDay()}T10:00:00Z` }),
      201,
    );
    await expect200('appointment.read', api.get(`${SCHEDULING}/appointments/${booked.body.id}`));
    await expect200('appointment.list', api.get(`${SCHEDULING}/appointments?patientId=${ada.id}`));
    await expect200('appointment.calendar', api.get(`${SCHEDULING}/appointments/${booked.body.id}.ics`));
    const submitted = await expect200(
      'form_submission.create',
      api.post<SubmissionResultDto>(`${FORMS}/${form.id}/submit`, { fields: { name: 'Ada' }, patientId: ada.id }),
      201,
      false, // answers the submission's id only
    );
    await expect200('form_submission.read', api.get(`${FORMS}/${form.id}/submissions/${submitted.body.submissionId}`));
    await expect200('form_submission.list', api.get(`${FORMS}/${form.id}/submissions`));
    const sent = await expect200(
      'email_message.send',
      api.post<EmailSendAcceptedDto>('/api/v1/emails/send', { patientId: ada.id, templateId: template.id }),
      202,
      false, // answers the message's id only
    );
    await expect200('email_message.read', api.get(`/api/v1/emails/messages/${sent.body.messageId}`));
    await expect200('email_message.list', api.get(`/api/v1/emails/messages?patientId=${ada.id}`));
    const events = await expect200('event.list', api.get<EventPageOf<PatientDto>>('/api/v1/events?type=patient.created&limit=100'));
    const created = events.body.events.find((e) => e.data.id === ada.id)!;
    await expect200('event.read', api.get(`/api/v1/events/${created.id}`));

    // Answers that did not carry Ada: Bob's read, a failed read, another tenant's and another mode's.
    expect((await api.get(`${PATIENTS}/${bob.id}`)).status).toBe(200);
    expect((await api.put(`${PATIENTS}/${ada.id}`, { email: 'not-an-email' })).status).toBe(400);
    expect((await suite.api(other.testKey).get(`${PATIENTS}/${ada.id}`)).status).toBe(404);
    expect((await suite.api(suite.tenant.liveKey).get(`${PATIENTS}/${ada.id}`)).status).toBe(404);
    expect((await suite.api(suite.tenant.liveKey).get(`${PATIENTS}?limit=100`)).status).toBe(200);

    const log = await logOf(ada.id, expected.length);
    expect(log.map((e) => e.action).sort()).toEqual([...expected].sort());
    expect(log.every((e) => e.apiKeyId === ownerKeyId && typeof e.requestId === 'string' && e.ip === '127.0.0.1')).toBe(true);
    const times = log.map((e) => e.at);
    expect(times).toEqual([...times].sort().reverse());
    expect(Object.keys(log[0]).sort()).toEqual(['action', 'apiKeyId', 'at', 'id', 'ip', 'requestId']);

    // Bob was carried by his creation, his read, the unfiltered list page and the page of patient.created events.
    const bobs = await logOf(bob.id, 4);
    expect(bobs.map((e) => e.action).sort()).toEqual(['event.list', 'patient.create', 'patient.list', 'patient.read']);
  });

  it('records the patient summary a key without patients:read reads in events', async () => {
    const patient = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Summarised' });
    const webhooksOnly = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF', scopes: ['webhooks:read'] });
    const events = await suite.api(webhooksOnly).get<EventPageOf<PatientSummaryDto>>('/api/v1/events?type=patient.created&limit=100');
    expect(events.status).toBe(200);
    const shown = events.body.events.find((e) => e.data.id === patient.id)!;
    expect(shown.data).not.toHaveProperty('joiningCode'); // the summary, not the whole patient
    const log = await logOf(patient.id, 2);
    expect(log.map((e) => e.action).sort()).toEqual(['event.list', 'patient.create']);
  });

  it('records template previews rendered for the patient (email and SMS), not those rendered without one', async () => {
    const api = suite.api();
    const patient = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Previewed', phone: '+14155552671' });
    const email = (
      await api.post<EmailTemplateDto>('/api/v1/emails/templates', { name: 'P', subject: 'Hi {{patient.firstName}}', textContent: 'Hi' })
    ).body;
    const sms = (await api.post<{ id: string }>('/api/v1/sms/templates', { name: 'P', body: 'Hi {{patient.firstName}} {{patient.phone}}' }))
      .body;
    const emailPreview = await api.post<{ subject: string }>(`/api/v1/emails/templates/${email.id}/preview`, { patientId: patient.id });
    expect(emailPreview.status).toBe(200);
    expect(emailPreview.body.subject).toBe('Hi Previewed');
    const smsPreview = await api.post<{ body: string }>(`/api/v1/sms/templates/${sms.id}/preview`, { patientId: patient.id });
    expect(smsPreview.status).toBe(200);
    expect(smsPreview.body.body).toBe('Hi Previewed +14155552671');
    // Without a patient, or for another tenant's patient (400), nobody's data is rendered.
    expect(
      (await api.post(`/api/v1/emails/templates/${email.id}/preview`, { variables: { patient: { firstName: 'Sample' } } })).status,
    ).toBe(200);
    expect((await suite.api(other.testKey).post(`/api/v1/sms/templates/${sms.id}/preview`, { patientId: patient.id })).status).toBe(404);
    const log = await logOf(patient.id, 3);
    expect(log.map((e) => e.action).sort()).toEqual(['email_template.preview', 'patient.create', 'sms_template.preview']);
  });

  it('records the request id and IP of the answer, and pages with a cursor', async () => {
    const patient = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Paged' });
    for (let i = 0; i < 5; i++) {
      const res = await call(suite.app, 'GET', `${PATIENTS}/${patient.id}`, {
        key: suite.tenant.testKey,
        remoteAddress: '203.0.113.9',
        headers: { 'x-request-id': `access-${i}` },
      });
      expect(res.status).toBe(200);
    }
    await logOf(patient.id, 6);
    const api = suite.api();
    const first = await api.get<PatientAccessLogDto>(accessLog(patient.id, '?limit=2'));
    expect(first.body.entries.map((e) => e.requestId)).toEqual(['access-4', 'access-3']);
    expect(first.body.entries[0]).toMatchObject({ ip: '203.0.113.9', action: 'patient.read' });
    const second = await api.get<PatientAccessLogDto>(accessLog(patient.id, `?limit=2&cursor=${first.body.nextCursor}`));
    expect(second.body.entries.map((e) => e.requestId)).toEqual(['access-2', 'access-1']);
    const third = await api.get<PatientAccessLogDto>(accessLog(patient.id, `?limit=2&cursor=${second.body.nextCursor}`));
    expect(third.body.entries.map((e) => e.requestId)).toEqual(['access-0', expect.any(String)]);
    expect(third.body.entries[1].action).toBe('patient.create');
    expect(third.body.nextCursor).toBeNull();
  });

  it("keeps tenants and modes apart: another tenant's or mode's key gets 404, and their reads of their own patients never show", async () => {
    const mine = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Mine' });
    const theirs = await createPatient(suite.app, other.testKey, { firstName: 'Theirs' });
    expect((await suite.api(other.testKey).get(accessLog(mine.id))).status).toBe(404);
    expect((await suite.api(suite.tenant.liveKey).get(accessLog(mine.id))).status).toBe(404);
    expect((await suite.api().get(accessLog(theirs.id))).status).toBe(404);
    expect((await suite.api(other.testKey).get(`${PATIENTS}/${theirs.id}`)).status).toBe(200);
    const theirLog = await logOf(theirs.id, 2, other.testKey);
    expect(theirLog.map((e) => e.action).sort()).toEqual(['patient.create', 'patient.read']);
    const myLog = await logOf(mine.id, 1);
    expect(myLog.map((e) => e.action)).toEqual(['patient.create']);
  });

  it('needs OWNER or ADMIN and settings:read (403), and a real patient id (404)', async () => {
    const patient = await createPatient(suite.app, suite.tenant.testKey, { firstName: 'Guarded' });
    const staff = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF' });
    const noScope = await createKey(suite.app, suite.tenant.testKey, { role: 'ADMIN', scopes: ['patients:read'] });
    const admin = await createKey(suite.app, suite.tenant.testKey, { role: 'ADMIN', scopes: ['settings:read'] });
    const staffAnswer = await suite.api(staff).get<Problem>(accessLog(patient.id));
    expect(staffAnswer.status).toBe(403);
    expect(staffAnswer.body.code).toBe('insufficient_role');
    const scopeAnswer = await suite.api(noScope).get<Problem>(accessLog(patient.id));
    expect(scopeAnswer.status).toBe(403);
    expect(scopeAnswer.body.code).toBe('insufficient_scope');
    expect((await suite.api(admin).get(accessLog(patient.id))).status).toBe(200);
    expect((await suite.api(admin).get(accessLog('00000000-0000-4000-8000-000000000000'))).status).toBe(404);
    expect((await suite.api(admin).get(accessLog('not-an-id'))).status).toBe(404);
    expect((await suite.api(admin).get(accessLog(patient.id, '?cursor=forged'))).status).toBe(400);
    // Reading the log is audited, but it carries no patient data: it is not an access of the patient.
    const log = await logOf(patient.id, 1);
    expect(log.map((e) => e.action)).toEqual(['patient.create']);
  });
});
