import type { DemoSeedResult } from './demo-seeder';
import { demoSummary } from './demo-summary';

const URL = 'https://clinic.example';
const NOW = Date.parse('2030-03-01T10:00:00Z');

function result(added: boolean): DemoSeedResult {
  const n = added ? 1 : 0;
  return {
    tenantId: 't-1',
    mode: 'test',
    seeded: {
      settingsFilled: { practice: [], brand: [], portal: [] },
      customFields: 6,
      patients: { created: 200 * n, updated: 200 * (1 - n), failed: 0 },
      patientsWithNewClinicalData: 40 * n,
      forms: n,
      formSubmissions: 8 * n,
      scheduling: { providers: 2 * n, appointmentTypes: 2 * n, timeOff: 2 * n, appointments: added ? { scheduled: 2 } : {}, schedulers: n },
      emailTemplates: 4 * n,
      smsTemplates: 3 * n,
      emailSequences: n,
    },
    bookingUrl: `${URL}/api/v1/public/schedulers/s-1`,
    manageUrl: `${URL}/api/v1/public/appointments/tok`,
    ids: {
      patients: ['pa-1', 'pa-2'],
      forms: ['f-1'],
      providers: ['pr-1', 'pr-2'],
      appointmentTypes: ['at-1', 'at-2'],
      appointments: ['a-1', 'a-2'],
      schedulers: ['s-1'],
      emailTemplates: ['e-1'],
      smsTemplates: ['m-1'],
      emailSequences: ['q-1'],
    },
    records: {
      patient: { id: 'pa-1', name: 'Ada Lovelace' },
      providers: [
        { id: 'pr-1', name: 'Dr. Maya Chen', timezone: 'America/New_York' },
        { id: 'pr-2', name: 'Dr. Tom Okafor', timezone: 'Europe/London' },
      ],
      appointmentTypes: [
        { id: 'at-1', name: 'New patient', durationMinutes: 60 },
        { id: 'at-2', name: 'Follow-up', durationMinutes: 20 },
      ],
      bookingPage: { id: 's-1', name: 'New patient consultation' },
      appointment: {
        id: 'a-1',
        patientId: 'pa-1',
        providerId: 'pr-2',
        datetime: '2030-03-04T09:00:00.000Z',
        type: 'New patient',
        nextReminder: { channel: 'email', sendAt: '2030-03-03T09:00:00.000Z' },
      },
      form: { id: 'f-1', name: 'New patient intake' },
      sequence: { id: 'q-1', name: 'New patient welcome', status: 'active' },
    },
  };
}

describe('demoSummary', () => {
  it('names what was added, the key ids and links, and the calls to try with the shortest type, in under thirty lines', () => {
    const text = demoSummary(result(true), URL, NOW);
    expect(text.split('\n').length).toBeLessThanOrEqual(29);
    expect(text).toContain('Added 200 patients, 2 providers, 2 appointment types, 2 appointments, 1 booking page');
    expect(text).toMatch(/Dr\. Maya Chen {2}pr-1 {2}\(America\/New_York\)/);
    expect(text).toMatch(/Follow-up \(20 min\) {2}at-2/);
    expect(text).toMatch(/Manage link +https:\/\/clinic\.example\/api\/v1\/public\/appointments\/tok\n.*with Dr\. Tom Okafor/);
    expect(text).toContain(`curl -s "${URL}/api/v1/public/schedulers/s-1/availability?startDate=2030-03-02&endDate=2030-03-08"`);
    expect(text).toContain(
      `curl -s "${URL}/api/v1/scheduling/availability?providerId=pr-1&appointmentTypeId=at-2&startDate=2030-03-02&endDate=2030-03-08"`,
    );
    expect(text).toContain('seed:demo --tenant t-1 --json');
    // The test clock's flow: past the appointment's next reminder, then its messages.
    expect(text).toContain(`curl -s -X POST "${URL}/api/v1/test-helpers/clock/advance"`);
    expect(text).toContain(`-d '{"to":"2030-03-03T09:01:00.000Z"}'`);
    expect(text).toContain(`curl -s "${URL}/api/v1/emails/messages?appointmentId=a-1"`);
  });

  it('says so when the tenant had the demo data already', () => {
    expect(demoSummary(result(false), URL, NOW)).toContain('It had all of it already: nothing added.');
  });
});
