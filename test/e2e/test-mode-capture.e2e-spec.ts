import { DateTime } from 'luxon';
import { clock } from '../../src/common/time/clock';
import { client, createTenant, startApp, TestTenant } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { bookAppointment, createProvider, everyDay, SCHEDULING } from '../helpers/scheduling';
import { SmtpReceiver } from '../helpers/smtp-receiver';
import { useApp } from '../helpers/use-app';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { EmailMessageDetailDto, EmailMessageDto, EmailMessageListDto } from '../../src/modules/email/dto/email-message.dto';
import type { EmailSendAcceptedDto } from '../../src/modules/email/dto/send-email.dto';
import type { EmailTemplateDto } from '../../src/modules/email/dto/email-template.dto';
import type { SmsMessageDto } from '../../src/modules/sms';
import type { SmsMessageListDto } from '../../src/modules/sms/dto/sms-message.dto';
import type { SmsTemplateDto } from '../../src/modules/sms/dto/sms-template.dto';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AppointmentTypeDto } from '../../src/modules/scheduling/appointment-types/dto/appointment-type.dto';

const MESSAGES = '/api/v1/emails/messages';
const SMS_MESSAGES = '/api/v1/sms/messages';
const SEQUENCES = '/api/v1/emails/sequences';
const NY = 'America/New_York';

/**
 * Capture: nothing a test key sends, or its data triggers (a send, a sequence step, a
 * reminder), reaches SMTP_URL. A real SMTP receiver stands at SMTP_URL and must see nothing from test mode,
 * while a live send through the same app proves it is listening.
 */
describe('Test mode never reaches a real relay', () => {
  let live: SmtpReceiver;
  let staging: SmtpReceiver;
  const baseOffset = clock.offsetMs();

  beforeAll(async () => {
    live = await new SmtpReceiver().start();
    staging = await new SmtpReceiver().start();
  });
  const suite = useApp(() => ({
    ...NO_RATE_LIMITS,
    SMTP_URL: live.url,
    EMAIL_SEQUENCE_MINUTE_MS: '100',
    REDIS_PREFIX: `${process.env.REDIS_PREFIX}:capture`,
  }));
  afterAll(async () => {
    clock.setOffsetMs(baseOffset);
    await live.stop();
    await staging.stop();
  });

  const settled = <T extends { status: string }>(app: NestFastifyApplication, key: string, path: string): Promise<T> =>
    eventually(async () => {
      const res = await client(app, key).get<T>(path);
      expect(res.status).toBe(200);
      expect(['queued', 'sending']).not.toContain(res.body.status);
      return res.body;
    }, 20_000);

  async function emailTemplate(key: string, name: string, textContent: string): Promise<EmailTemplateDto> {
    const res = await suite.api(key).post<EmailTemplateDto>('/api/v1/emails/templates', { name, subject: `${name} subject`, textContent });
    expect(res.status).toBe(201);
    return res.body;
  }

  it('captures a test-mode send with its body and kind; the same send with the live key reaches SMTP_URL', async () => {
    const { testKey, liveKey } = suite.tenant;
    const sent = await suite.api(testKey).post<EmailSendAcceptedDto>('/api/v1/emails/send', {
      to: 'real.person@example.com',
      subject: 'Your results',
      textContent: 'Hello from test mode',
      htmlContent: '<p>Hello from test mode</p>',
    });
    expect(sent.status).toBe(202);
    const captured = await settled<EmailMessageDetailDto>(suite.app, testKey, `${MESSAGES}/${sent.body.messageId}`);
    expect(captured).toMatchObject({
      kind: 'send',
      status: 'sent',
      transport: 'test',
      smtpMessageId: null,
      textBody: 'Hello from test mode',
      htmlBody: '<p>Hello from test mode</p>',
      appointmentId: null,
    });

    const liveSent = await suite.api(liveKey).post<EmailSendAcceptedDto>('/api/v1/emails/send', {
      to: 'real.person@example.com',
      subject: 'Live',
      textContent: 'Hello from live mode',
    });
    expect(await settled<EmailMessageDto>(suite.app, liveKey, `${MESSAGES}/${liveSent.body.messageId}`)).toMatchObject({
      status: 'sent',
      transport: 'smtp',
    });
    expect(live.byMessageId(liveSent.body.messageId)).toHaveLength(1);
    expect(live.received.filter((m) => m.text?.includes('test mode'))).toEqual([]);
    expect(live.byMessageId(sent.body.messageId)).toEqual([]);

    // The lists filter by transport.
    const listed = await suite.api(testKey).get<EmailMessageListDto>(`${MESSAGES}?transport=test`);
    expect(listed.body.messages.map((m) => m.id)).toContain(sent.body.messageId);
    expect(listed.body.messages.every((m) => m.transport === 'test')).toBe(true);
    expect((await suite.api(liveKey).get<EmailMessageListDto>(`${MESSAGES}?transport=test`)).body.messages).toEqual([]);
    expect((await suite.api(testKey).get(`${MESSAGES}?transport=carrier-pigeon`)).status).toBe(400);
  });

  it('captures a sequence step of a test-mode enrolment', async () => {
    const { testKey } = suite.tenant;
    const patient = await createPatient(suite.app, testKey, { email: 'sequence.patient@example.com' });
    const template = await emailTemplate(testKey, 'Welcome', 'Welcome, {{patient.firstName}}');
    const created = await suite.api(testKey).post<{ sequence: { id: string } }>(SEQUENCES, {
      name: 'Welcome',
      steps: [{ templateId: template.id, delayMinutes: 1 }],
    });
    expect(created.status).toBe(201);
    const id = created.body.sequence.id;
    expect((await suite.api(testKey).patch(`${SEQUENCES}/${id}`, { status: 'active' })).status).toBe(200);
    expect((await suite.api(testKey).post(`${SEQUENCES}/${id}/enroll`, { patientIds: [patient.id] })).status).toBe(202);

    const step = await eventually(async () => {
      const page = await suite.api(testKey).get<EmailMessageListDto>(`${MESSAGES}?sequenceId=${id}`);
      expect(page.body.messages).toHaveLength(1);
      expect(page.body.messages[0].status).toBe('sent');
      return page.body.messages[0];
    }, 20_000);
    expect(step).toMatchObject({
      kind: 'sequence',
      transport: 'test',
      sequenceId: id,
      step: 0,
      textBody: expect.stringContaining('Welcome'),
    });
    expect(live.received.filter((m) => m.to.includes('sequence.patient@example.com'))).toEqual([]);
  });

  it('captures test-mode email and SMS reminders; the lists find them by appointment', async () => {
    const { testKey } = suite.tenant;
    const provider = await createProvider(suite.app, testKey, { name: 'Dr. Capture', timezone: NY, workingHours: everyDay() });
    const email = await emailTemplate(testKey, 'Reminder', 'See you at {{appointment.localTime}}');
    const sms = await suite
      .api(testKey)
      .post<SmsTemplateDto>('/api/v1/sms/templates', { name: 'Reminder', body: 'See you at {{appointment.localTime}}' });
    const type = await suite.api(testKey).post<AppointmentTypeDto>(`${SCHEDULING}/appointment-types`, {
      name: 'Check-up',
      durationMinutes: 30,
      reminders: [
        { offsetMinutes: 1440, channel: 'email', templateId: email.id },
        { offsetMinutes: 1440, channel: 'sms', templateId: sms.body.id },
      ],
    });
    expect(type.status).toBe(201);
    const patient = await createPatient(suite.app, testKey, { email: 'reminded.patient@example.com', phone: '+12025550199' });
    const start = DateTime.fromMillis(clock.nowMs(), { zone: NY }).startOf('day').plus({ days: 20 }).set({ hour: 15 });
    const booked: AppointmentDto = await bookAppointment(suite.app, testKey, {
      patientId: patient.id,
      providerId: provider.id,
      appointmentTypeId: type.body.id,
      datetime: start.toUTC().toISO()!,
    });

    // A minute past both reminders' time.
    clock.setOffsetMs(start.minus({ days: 1 }).plus({ minutes: 1 }).toMillis() - Date.now());
    try {
      const byAppointment = await eventually(async () => {
        const page = await suite.api(testKey).get<EmailMessageListDto>(`${MESSAGES}?appointmentId=${booked.id}`);
        expect(page.body.messages.map((m) => m.status)).toEqual(['sent']);
        return page.body.messages[0];
      }, 20_000);
      expect(byAppointment).toMatchObject({ kind: 'reminder', transport: 'test', appointmentId: booked.id, patientId: patient.id });
      expect(byAppointment.textBody).toMatch(/^See you at 15:00$/);

      const texts = await eventually(async () => {
        const page = await suite.api(testKey).get<SmsMessageListDto>(`${SMS_MESSAGES}?appointmentId=${booked.id}`);
        expect(page.body.messages.map((m) => m.status)).toEqual(['sent']);
        return page.body.messages;
      }, 20_000);
      expect(texts[0]).toMatchObject<Partial<SmsMessageDto>>({
        kind: 'reminder',
        transport: 'test',
        appointmentId: booked.id,
        body: 'See you at 15:00',
      });
      expect(
        (await suite.api(testKey).get<SmsMessageListDto>(`${SMS_MESSAGES}?transport=test&appointmentId=${booked.id}`)).body.messages,
      ).toHaveLength(1);
    } finally {
      clock.setOffsetMs(baseOffset);
    }
    expect(live.received.filter((m) => m.to.includes('reminded.patient@example.com'))).toEqual([]);
    expect((await suite.api(testKey).get(`${MESSAGES}?appointmentId=not-an-id`)).status).toBe(400);
    // Another tenant, and the same tenant's live mode, find nothing by this appointment.
    const other = await createTenant(suite.app);
    for (const key of [other.testKey, suite.tenant.liveKey]) {
      expect((await suite.api(key).get<EmailMessageListDto>(`${MESSAGES}?appointmentId=${booked.id}`)).body.messages).toEqual([]);
      expect((await suite.api(key).get<SmsMessageListDto>(`${SMS_MESSAGES}?appointmentId=${booked.id}`)).body.messages).toEqual([]);
    }
  });

  it('sends test-mode email to TEST_SMTP_URL when set, never to SMTP_URL', async () => {
    const app = await startApp({
      ...NO_RATE_LIMITS,
      SMTP_URL: live.url,
      TEST_SMTP_URL: staging.url,
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}:capture-staging`,
    });
    try {
      const tenant: TestTenant = await createTenant(app);
      const sent = await client(app, tenant.testKey).post<EmailSendAcceptedDto>('/api/v1/emails/send', {
        to: 'staged.person@example.com',
        subject: 'Staged',
        textContent: 'To the catch-all',
      });
      expect(await settled<EmailMessageDto>(app, tenant.testKey, `${MESSAGES}/${sent.body.messageId}`)).toMatchObject({
        status: 'sent',
        transport: 'smtp',
      });
      expect(staging.byMessageId(sent.body.messageId)).toHaveLength(1);
      expect(live.byMessageId(sent.body.messageId)).toEqual([]);
      expect(live.received.filter((m) => m.to.includes('staged.person@example.com'))).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
