import type { DemoSeedResult } from './demo-seeder';

const DAY = 86_400_000;
const MINUTE = 60_000;
const dateOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** Label and value columns, the value's continuation lines under the value. */
function table(rows: [string, string | string[]][]): string[] {
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return rows.flatMap(([label, value]) =>
    (Array.isArray(value) ? value : [value]).map((line, i) => `  ${(i ? '' : label).padEnd(width)}${line}`),
  );
}

/**
 * What seed:demo prints by default: what the tenant now holds, the ids and links a first call needs, and two
 * calls to try with them. The whole result (every id) is what `--json` prints.
 */
export function demoSummary(result: DemoSeedResult, publicUrl: string, nowMs: number): string {
  const { seeded, ids, records } = result;
  const added = [
    [seeded.patients.created, 'patients'],
    [seeded.scheduling.providers, 'providers'],
    [seeded.scheduling.appointmentTypes, 'appointment types'],
    [Object.values(seeded.scheduling.appointments).reduce((a, b) => a + b, 0), 'appointments'],
    [seeded.scheduling.schedulers, 'booking page'],
    [seeded.forms, 'form'],
    [seeded.formSubmissions, 'form submissions'],
    [seeded.emailTemplates, 'email templates'],
    [seeded.smsTemplates, 'SMS templates'],
    [seeded.emailSequences, 'sequence'],
  ].filter(([n]) => n);
  const { patient, appointment, bookingPage, form, sequence } = records;
  const providerName = (id: string): string => records.providers.find((p) => p.id === id)?.name ?? id;
  const rows: [string, string | string[]][] = [
    ['Patients', `${ids.patients.length}${patient ? `, e.g. ${patient.name}  ${patient.id}` : ''}`],
    ['Providers', records.providers.map((p) => `${p.name}  ${p.id}  (${p.timezone})`)],
    ['Appointment types', records.appointmentTypes.map((t) => `${t.name} (${t.durationMinutes} min)  ${t.id}`)],
    ['Appointments', `${ids.appointments.length} in the next two weeks, in every status`],
  ];
  if (appointment && result.manageUrl)
    rows.push([
      'Manage link',
      [
        result.manageUrl,
        `(the patient's link, no key: ${appointment.type ?? 'appointment'} with ${providerName(appointment.providerId)} at ${appointment.datetime})`,
      ],
    ]);
  if (bookingPage && result.bookingUrl) rows.push(['Booking page', [result.bookingUrl, `(${bookingPage.name}, no key)`]]);
  if (form) rows.push(['Intake form', `${form.name}  ${form.id}`]);
  rows.push(['Templates', `${ids.emailTemplates.length} email, ${ids.smsTemplates.length} SMS`]);
  if (sequence) rows.push(['Email sequence', `${sequence.name} (${sequence.status})  ${sequence.id}`]);

  const range = `startDate=${dateOf(nowMs + DAY)}&endDate=${dateOf(nowMs + 7 * DAY)}`;
  const tryNext: string[] = [];
  if (result.bookingUrl) tryNext.push(`  curl -s "${result.bookingUrl}/availability?${range}"`);
  const type = [...records.appointmentTypes].sort((a, b) => a.durationMinutes - b.durationMinutes)[0];
  if (records.providers[0] && type)
    tryNext.push(
      `  curl -s "${publicUrl}/api/v1/scheduling/availability?providerId=${records.providers[0].id}&appointmentTypeId=${type.id}&${range}" \\`,
      '    -H "Authorization: Bearer $KEY"   # KEY: the tenant\'s sk_test_ key',
    );
  const reminder = appointment?.nextReminder;
  if (appointment && reminder) {
    const messages = reminder.channel === 'email' ? 'emails/messages' : 'sms/messages';
    tryNext.push(
      `  # Its ${reminder.channel} reminder goes at ${reminder.sendAt}: move the test clock past it, then read what was sent`,
      `  curl -s -X POST "${publicUrl}/api/v1/test-helpers/clock/advance" -H "Authorization: Bearer $KEY" -H "content-type: application/json" -d '{"to":"${new Date(Date.parse(reminder.sendAt) + MINUTE).toISOString()}"}'`,
      `  curl -s "${publicUrl}/api/v1/${messages}?appointmentId=${appointment.id}" -H "Authorization: Bearer $KEY"`,
    );
  }

  return [
    `The test mode of tenant ${result.tenantId} holds the demo practice.`,
    added.length ? `Added ${added.map(([n, what]) => `${n} ${what}`).join(', ')}.` : 'It had all of it already: nothing added.',
    '',
    ...table(rows),
    '',
    'Try next:',
    ...tryNext,
    '',
    `Every id as JSON: node dist/cli.js seed:demo --tenant ${result.tenantId} --json`,
  ].join('\n');
}
