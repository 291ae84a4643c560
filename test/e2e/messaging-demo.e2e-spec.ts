import { DEMO_EMAIL_TEMPLATES, DEMO_SEQUENCE_NAME, DEMO_SMS_TEMPLATES, seedDemoMessaging } from '../../src/cli/demo-messaging';
import type { AuthContext } from '../../src/common/auth/auth.types';
import { EmailTemplatesService } from '../../src/modules/email/email-templates.service';
import { SequencesService } from '../../src/modules/email/sequences/sequences.service';
import { SmsTemplatesService } from '../../src/modules/sms/sms-templates.service';
import { createTenant } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';

describe('seed:demo email and SMS', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off' });

  it('adds email and SMS templates and an active sequence, once, that render for a patient', async () => {
    const tenant = await createTenant(suite.app);
    const auth = { tenantId: tenant.id, mode: 'test', role: 'OWNER', scopes: null } as AuthContext;
    const seed = () =>
      seedDemoMessaging(auth, suite.app.get(EmailTemplatesService), suite.app.get(SmsTemplatesService), suite.app.get(SequencesService));
    expect(await seed()).toEqual({ emailTemplates: DEMO_EMAIL_TEMPLATES.length, smsTemplates: DEMO_SMS_TEMPLATES.length, sequences: 1 });
    expect(await seed()).toEqual({ emailTemplates: 0, smsTemplates: 0, sequences: 0 });

    const api = suite.api(tenant.testKey);
    await api.post('/api/v1/settings/practice', { name: 'Riverside', phone: '+442079460000' });
    const patient = await createPatient(suite.app, tenant.testKey, { firstName: 'Ada', email: 'ada@example.com' });
    const [sequence] = (await api.get<{ sequences: { steps: { delayMinutes: number }[] }[] }>('/api/v1/emails/sequences')).body.sequences;
    expect(sequence).toMatchObject({ name: DEMO_SEQUENCE_NAME, status: 'active', enrollmentCount: 0 });
    expect(sequence.steps.map((s) => s.delayMinutes)).toEqual([0, 1440, 10080]);

    const sms = (await api.get<{ templates: { id: string; name: string }[] }>('/api/v1/sms/templates')).body.templates;
    expect(sms).toHaveLength(DEMO_SMS_TEMPLATES.length);
    for (const template of sms) {
      const preview = await api.post<{ encoding: string; body: string }>(`/api/v1/sms/templates/${template.id}/preview`, {
        patientId: patient.id,
        // A preview shows a reminder's appointment from a sample passed as a variable.
        variables: { appointmentDate: '2 December at 09:30', appointment: { localDate: '2 December', localTime: '09:30' }, minutes: 15 },
      });
      expect([template.name, preview.status, preview.body.encoding]).toEqual([template.name, 200, expect.stringMatching(/GSM-7|UCS-2/)]);
      expect(preview.body.body).not.toMatch(/\{\{/);
      if (template.name === 'Appointment reminder') expect(preview.body.body).toContain('on 2 December at 09:30');
    }
    const welcome = (await api.get<{ templates: { id: string; name: string }[] }>('/api/v1/emails/templates')).body.templates.find(
      (t) => t.name === 'Welcome',
    )!;
    const preview = await api.post(`/api/v1/emails/templates/${welcome.id}/preview`, { patientId: patient.id });
    expect(preview.status).toBe(200);
    expect(JSON.stringify(preview.body)).toContain('Welcome to Riverside, Ada');
  });
});
