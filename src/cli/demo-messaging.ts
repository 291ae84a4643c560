import type { AuthContext } from '../common/auth/auth.types';
import type { CreateEmailTemplateDto } from '../modules/email/dto/email-template.dto';
import { EmailTemplatesService } from '../modules/email/email-templates.service';
import { SequencesService } from '../modules/email/sequences/sequences.service';
import type { CreateSmsTemplateDto } from '../modules/sms/dto/sms-template.dto';
import { SmsTemplatesService } from '../modules/sms/sms-templates.service';

const FOOTER_HTML = '<p style="color:#6b7280">{{practice.name}} · {{practice.phone}}</p>';

export const DEMO_EMAIL_TEMPLATES: CreateEmailTemplateDto[] = [
  {
    name: 'Welcome',
    subject: 'Welcome to {{practice.name}}, {{patient.firstName}}',
    htmlContent: `<p>Dear {{patient.firstName}},</p><p>Welcome to {{practice.name}}. Your joining code is <strong>{{patient.joiningCode}}</strong>.</p>${FOOTER_HTML}`,
    textContent:
      'Dear {{patient.firstName}},\n\nWelcome to {{practice.name}}. Your joining code is {{patient.joiningCode}}.\n\n{{practice.name}} · {{practice.phone}}',
  },
  {
    name: 'Getting ready for your first visit',
    subject: 'Your first visit to {{practice.name}}',
    htmlContent: `<p>Hi {{patient.firstName}},</p><p>Please bring a photo ID and arrive ten minutes early. {{#if parking}}Parking: {{parking}}.{{/if}}</p>${FOOTER_HTML}`,
    textContent:
      'Hi {{patient.firstName}},\n\nPlease bring a photo ID and arrive ten minutes early.{{#if parking}} Parking: {{parking}}.{{/if}}',
  },
  {
    name: 'How was your visit?',
    subject: 'How was your visit, {{patient.firstName}}?',
    htmlContent: `<p>Hi {{patient.firstName}},</p><p>We would love to hear how your visit to {{practice.name}} went. Just reply to this email.</p>${FOOTER_HTML}`,
  },
  {
    name: 'Appointment reminder',
    subject: 'Reminder: your appointment on {{appointment.localDate}} at {{appointment.localTime}}',
    textContent:
      'Hi {{patient.firstName}}, this is a reminder of your {{appointment.typeName}} with {{appointment.providerName}} at {{practice.name}} ' +
      'on {{appointment.localDate}} at {{appointment.localTime}} ({{appointment.timezone}}). To confirm, cancel or move it: {{appointment.manageUrl}}',
  },
];

export const DEMO_SMS_TEMPLATES: CreateSmsTemplateDto[] = [
  // One segment with its manage link (70 characters on an https host of 26) for a practice name of up to 25.
  {
    name: 'Appointment reminder',
    body: '{{practice.name}}: see you on {{appointment.localDate}} at {{appointment.localTime}}. Reply C to confirm. Change it: {{appointment.manageUrl}}',
  },
  {
    name: 'Booking confirmation',
    body: '{{practice.name}}: you are booked for {{appointmentDate}}. Call {{practice.phone}} to change it.',
  },
  { name: 'Running late', body: 'Sorry {{patient.firstName}}, we are running about {{minutes}} minutes late today. — {{practice.name}}' },
];

/** The email and the SMS template the demo appointment types remind with. */
export const DEMO_REMINDER_TEMPLATE = 'Appointment reminder';

export const DEMO_SEQUENCE_NAME = 'New patient welcome';

/**
 * Email and SMS templates and an active three-step welcome sequence (at once, after a day, after a
 * week). Safe to run twice: what already exists by name is kept. Nobody is enrolled: enrolling sends.
 */
export async function seedDemoMessaging(
  auth: AuthContext,
  emailTemplates: EmailTemplatesService,
  smsTemplates: SmsTemplatesService,
  sequences: SequencesService,
): Promise<{ emailTemplates: number; smsTemplates: number; sequences: number }> {
  const page = { limit: 100 };
  const emailByName = new Map((await emailTemplates.list(auth, page)).templates.map((t) => [t.name, t.id]));
  let emailCreated = 0;
  for (const dto of DEMO_EMAIL_TEMPLATES) {
    if (emailByName.has(dto.name)) continue;
    emailByName.set(dto.name, (await emailTemplates.create(auth, dto)).id);
    emailCreated++;
  }

  const smsNames = new Set((await smsTemplates.list(auth, page)).templates.map((t) => t.name));
  let smsCreated = 0;
  for (const dto of DEMO_SMS_TEMPLATES.filter((t) => !smsNames.has(t.name))) {
    await smsTemplates.create(auth, dto);
    smsCreated++;
  }

  const existing = (await sequences.list(auth, {}, page)).sequences.find((s) => s.name === DEMO_SEQUENCE_NAME);
  if (existing) return { emailTemplates: emailCreated, smsTemplates: smsCreated, sequences: 0 };
  const step = (name: string, delayMinutes: number) => ({ templateId: emailByName.get(name)!, delayMinutes });
  const { sequence } = await sequences.create(auth, {
    name: DEMO_SEQUENCE_NAME,
    description: 'Sent to every new patient: a welcome at once, first-visit tips after a day, a check-in after a week.',
    steps: [step('Welcome', 0), step('Getting ready for your first visit', 1440), step('How was your visit?', 10080)],
  });
  await sequences.update(auth, sequence.id, { status: 'active' });
  return { emailTemplates: emailCreated, smsTemplates: smsCreated, sequences: 1 };
}
