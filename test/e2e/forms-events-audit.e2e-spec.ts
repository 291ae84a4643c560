import { client, createTenant } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { auditEntries } from '../helpers/audit';
import { createForm, FORMS, submit } from '../helpers/forms';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';

describe('Forms: form.submitted events and the audit of submissions', () => {
  let api: ReturnType<typeof client>;

  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off' });

  beforeAll(async () => {
    api = suite.api();
  });

  it('emits form.submitted with the submission for each accepted submission, and none for a refused one', async () => {
    const form = await createForm(suite.app, suite.tenant.testKey);
    const patient = await createPatient(suite.app, suite.tenant.testKey);
    const accepted = await submit<{ submissionId: string }>(
      suite.app,
      suite.tenant.testKey,
      form.id,
      { pain: 4, phone: '+44 20 7946 0000' },
      { patientId: patient.id },
    );
    expect((await submit(suite.app, suite.tenant.testKey, form.id, { pain: 40 })).status).toBe(400);
    await api.patch(`${FORMS}/${form.id}`, { isActive: false });
    expect((await submit(suite.app, suite.tenant.testKey, form.id, { pain: 4 })).status).toBe(409);

    const events = (await api.get<{ events: unknown[] }>('/api/v1/events?type=form.submitted')).body.events;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'form.submitted',
      data: {
        id: accepted.body.submissionId,
        formId: form.id,
        formVersion: 1,
        patientId: patient.id,
        fields: { pain: 4, phone: '+442079460000' },
      },
    });
    const other = await createTenant(suite.app);
    expect((await client(suite.app, other.testKey).get<{ events: unknown[] }>('/api/v1/events?type=form.submitted')).body.events).toEqual(
      [],
    );
  });

  it('audits submitting, listing and reading submissions, never their answers', async () => {
    const form = await createForm(suite.app, suite.tenant.testKey);
    const sent = await submit<{ submissionId: string }>(suite.app, suite.tenant.testKey, form.id, { name: 'Ada Lovelace' });
    const submissionId = sent.body.submissionId;
    await api.get(`${FORMS}/${form.id}/submissions`);
    await api.get(sent.headers.location as string);

    const entries = (query: string, expected: number) => auditEntries(suite.app, suite.tenant.testKey, query, expected);
    const ofSubmission = await entries(`resourceId=${submissionId}`, 2);
    expect(ofSubmission.map((e) => [e.action, e.resourceType, e.status])).toEqual([
      ['form_submission.read', 'form_submission', 200],
      ['form_submission.create', 'form_submission', 201],
    ]);
    const ofForm = await entries(`resourceId=${form.id}`, 1);
    expect(ofForm.map((e) => [e.action, e.resourceType, e.status])).toEqual([['form_submission.list', 'form', 200]]);
    expect(JSON.stringify([...ofSubmission, ...ofForm])).not.toMatch(/Ada|Lovelace/);
  });
});
