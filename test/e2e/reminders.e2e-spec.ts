import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { DateTime } from 'luxon';
import twilio from 'twilio';
import { DEMO_REMINDER_TEMPLATE, DEMO_SMS_TEMPLATES } from '../../src/cli/demo-messaging';
import { QueueName } from '../../src/common/queue/queues';
import { clock } from '../../src/common/time/clock';
import { Transactions } from '../../src/database/transactions';
import { UnsubscribeTokens } from '../../src/modules/email/unsubscribe-tokens.service';
import { AppointmentsService, durationPolicy, ProvidersService } from '../../src/modules/scheduling';
import { smsSegments } from '../../src/modules/sms/sms-segments';
import { call, createTenant, dataSource, TestTenant } from '../helpers/app';
import { nextOffsetChange } from '../helpers/dates';
import { eventually } from '../helpers/eventually';
import { FakeTwilio } from '../helpers/fake-twilio';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { sleep } from '../helpers/processes';
import { bookAppointment, createProvider, createScheduler, everyDay, SCHEDULING } from '../helpers/scheduling';
import { SmtpReceiver } from '../helpers/smtp-receiver';
import { useApp } from '../helpers/use-app';
import type { EventPageOf } from '../helpers/events';
import type { AuthContext } from '../../src/common/auth/auth.types';
import type { PatientDto } from '../../src/modules/patients';
import type {
  AppointmentDto,
  AppointmentListDto,
  AppointmentReminderDto,
} from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AppointmentTypeDto } from '../../src/modules/scheduling/appointment-types/dto/appointment-type.dto';
import type { ProviderDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type { PublicBookingResultDto } from '../../src/modules/booking-pages/dto/public-scheduler.dto';
import type { EmailTemplateDto } from '../../src/modules/email/dto/email-template.dto';
import type { SmsMessageDto } from '../../src/modules/sms';
import type { SmsTemplateDto } from '../../src/modules/sms/dto/sms-template.dto';

/** reminder.sent carries the reminder with its appointment and patient. */
type ReminderSent = AppointmentReminderDto & { appointmentId: string; patientId: string };

const TYPES = `${SCHEDULING}/appointment-types`;
const APPOINTMENTS = `${SCHEDULING}/appointments`;
const NY = 'America/New_York';
const MINUTE = 60_000;
const PUBLIC_URL = 'https://api.acmeclinic.com';
const FROM = '+15005550006';

/**
 * Appointment reminders through the real app, its real workers (the reminder, email and SMS queues, the
 * job outbox's relay), a real SMTP receiver and the SMS test transport. "Now" is moved by the clock the app
 * reads, so reminders come due within the test without waiting for their day.
 */
describe('Appointment reminders', () => {
  let receiver: SmtpReceiver;
  let fake: FakeTwilio;
  let other: TestTenant;
  let provider: ProviderDto;
  let emailTemplate: EmailTemplateDto;
  let smsTemplate: SmsTemplateDto;
  const baseOffset = clock.offsetMs();

  beforeAll(async () => {
    receiver = await new SmtpReceiver().start();
    // Live-mode texts go to a local fake of Twilio's API; test-mode ones take the test transport.
    fake = await new FakeTwilio().start();
  });
  // Three tries, 100 and 200 ms apart, so that a reminder whose job keeps failing ends within the test.
  const suite = useApp(() => ({
    ...NO_RATE_LIMITS,
    SMTP_URL: receiver.url,
    TEST_SMTP_URL: receiver.url,
    PUBLIC_URL,
    ...fake.env(FROM),
    REMINDER_MAX_ATTEMPTS: '3',
    REMINDER_RETRY_BASE_MS: '100',
  }));
  beforeAll(async () => {
    other = await createTenant(suite.app);
    expect((await api().post('/api/v1/settings/practice', { name: 'Acme Clinic' })).status).toBe(200);
    provider = await createProvider(suite.app, suite.tenant.testKey, { name: 'Dr. Ada Lovelace', timezone: NY, workingHours: everyDay() });
    emailTemplate = (
      await api().post<EmailTemplateDto>('/api/v1/emails/templates', {
        name: 'Reminder',
        subject: 'Your {{appointment.typeName}} at {{appointment.localTime}}',
        textContent:
          'Hi {{patient.firstName}}: {{appointment.typeName}} with {{appointment.providerName}} on {{appointment.localDate}} at ' +
          '{{appointment.localTime}} ({{appointment.timezone}}, {{appointment.durationMinutes}} min), {{practice.name}}. {{appointment.manageUrl}}',
      })
    ).body;
    smsTemplate = (
      await api().post<SmsTemplateDto>('/api/v1/sms/templates', {
        name: 'Reminder',
        body: '{{practice.name}}: {{appointment.localDate}} {{appointment.localTime}}',
      })
    ).body;
  });
  beforeAll(async () => {
    // The tenant's test clock moved two years ahead and back leaves nothing this suite would notice.
    const moved = await api().post('/api/v1/test-helpers/clock/advance', { to: new Date(clock.nowMs() + 729 * 86_400_000).toISOString() });
    expect(moved.status).toBe(200);
    expect((await api().post('/api/v1/test-helpers/clock/reset')).status).toBe(200);
  });
  afterAll(async () => {
    clock.setOffsetMs(baseOffset);
    await receiver.stop();
    await fake.stop();
  });
  afterEach(() => clock.setOffsetMs(baseOffset));

  const api = (key?: string) => suite.api(key);
  /** Moves the clock the app and this test read to `instant`. */
  const setNow = (instant: number): void => clock.setOffsetMs(instant - Date.now());

  async function createType(reminders: Record<string, unknown>[], key?: string): Promise<AppointmentTypeDto> {
    const res = await api(key).post<AppointmentTypeDto>(TYPES, { name: 'Check-up', durationMinutes: 30, reminders });
    if (res.status !== 201) throw new Error(`type creation failed: ${res.status} ${res.text}`);
    return res.body;
  }
  const emailRule = (offsetMinutes: number) => ({ offsetMinutes, channel: 'email', templateId: emailTemplate.id });
  const smsRule = (offsetMinutes: number) => ({ offsetMinutes, channel: 'sms', templateId: smsTemplate.id });

  /** 15:00 in New York (no quiet hours near it), a day of its own per call, weeks ahead. */
  let days = 30;
  const nextAfternoon = (): DateTime =>
    DateTime.fromMillis(clock.nowMs(), { zone: NY }).startOf('day').plus({ days: days++ }).set({ hour: 15 });

  let phones = 0;
  const newPatient = (body: Record<string, unknown> = {}) =>
    createPatient(suite.app, suite.tenant.testKey, {
      firstName: 'Grace',
      email: `patient${++phones}@reminders.test`,
      phone: `+1202555${String(3000 + phones)}`,
      ...body,
    });

  const book = (patient: PatientDto, type: AppointmentTypeDto, start: DateTime, key?: string, providerId = provider.id) =>
    bookAppointment(suite.app, key ?? suite.tenant.testKey, {
      patientId: patient.id,
      providerId,
      appointmentTypeId: type.id,
      datetime: start.toUTC().toISO()!,
    });
  const remindersOf = async (id: string, key?: string): Promise<AppointmentReminderDto[]> =>
    (await api(key).get<AppointmentDto>(`${APPOINTMENTS}/${id}`)).body.reminders;
  /** Waits until no reminder of the appointment is `scheduled` any more, and answers them. */
  const settled = (id: string, key?: string): Promise<AppointmentReminderDto[]> =>
    eventually(async () => {
      const reminders = await remindersOf(id, key);
      expect(reminders.map((r) => r.status)).not.toContain('scheduled');
      return reminders;
    }, 20_000);
  const emailsTo = (address: string | null) => receiver.received.filter((m) => address !== null && m.to.includes(address));

  it('plans one reminder per rule and sends each at its time, email over SMTP and SMS through its pipeline, rendered with the appointment', async () => {
    const type = await createType([emailRule(1440), smsRule(60)]);
    const patient = await newPatient();
    const start = nextAfternoon();
    const booked = await book(patient, type, start);
    expect(booked.reminders).toEqual([
      {
        id: expect.any(String),
        channel: 'email',
        offsetMinutes: 1440,
        sendAt: start.minus({ minutes: 1440 }).toUTC().toISO(),
        status: 'scheduled',
        reason: null,
        messageId: null,
      },
      {
        id: expect.any(String),
        channel: 'sms',
        offsetMinutes: 60,
        sendAt: start.minus({ hours: 1 }).toUTC().toISO(),
        status: 'scheduled',
        reason: null,
        messageId: null,
      },
    ]);
    const list = await api().get<AppointmentListDto>(`${APPOINTMENTS}?patientId=${patient.id}`);
    expect(list.body.appointments[0].reminders).toEqual(booked.reminders);

    // Just before the email's time nothing goes; just after it, the email only.
    setNow(start.minus({ minutes: 1440, seconds: 5 }).toMillis());
    await sleep(2_500);
    expect((await remindersOf(booked.id)).map((r) => r.status)).toEqual(['scheduled', 'scheduled']);
    setNow(start.minus({ minutes: 1440 }).toMillis() + 500);
    const email = await eventually(async () => {
      expect(emailsTo(patient.email)).toHaveLength(1);
      return emailsTo(patient.email)[0];
    }, 20_000);
    const local = start.setZone(NY);
    expect(email.headers.subject).toBe(`Your Check-up at 15:00`);
    expect(email.text).toContain(
      `Hi Grace: Check-up with Dr. Ada Lovelace on ${local.toISODate()} at 15:00 (${NY}, 30 min), Acme Clinic. ${booked.manageUrl}`,
    );
    const afterEmail = await eventually(async () => {
      const reminders = await remindersOf(booked.id);
      expect(reminders[0]).toMatchObject({ status: 'sent', reason: null, messageId: expect.any(String) });
      return reminders;
    });
    expect(afterEmail[1].status).toBe('scheduled');

    setNow(start.minus({ hours: 1 }).toMillis() + 500);
    const [sentEmail, sentSms] = await settled(booked.id);
    expect(sentSms).toMatchObject({ status: 'sent', messageId: expect.any(String) });
    const sms = await eventually(async () => {
      const res = await api().get<SmsMessageDto>(`/api/v1/sms/messages/${sentSms.messageId}`);
      expect(res.body.status).toBe('sent');
      return res.body;
    });
    expect(sms).toMatchObject({
      patientId: patient.id,
      to: patient.phone,
      body: `Acme Clinic: ${local.toISODate()} 15:00`,
      transport: 'test',
    });

    // reminder.sent, once per reminder; nothing is sent twice by later sweeps.
    const events = await api().get<EventPageOf<ReminderSent>>('/api/v1/events?type=reminder.sent&limit=100');
    const mine = events.body.events.filter((e) => e.data.appointmentId === booked.id);
    expect(mine.map((e) => e.data)).toEqual(
      expect.arrayContaining([
        { ...sentEmail, appointmentId: booked.id, patientId: patient.id },
        { ...sentSms, appointmentId: booked.id, patientId: patient.id },
      ]),
    );
    expect(mine).toHaveLength(2);
    await sleep(2_500);
    expect(emailsTo(patient.email)).toHaveLength(1);
  });

  it("sends the demo SMS reminder with the appointment's manage link in one segment", async () => {
    const demo = DEMO_SMS_TEMPLATES.find((t) => t.name === DEMO_REMINDER_TEMPLATE)!;
    const template = (await api().post<SmsTemplateDto>('/api/v1/sms/templates', { ...demo, name: 'Demo reminder' })).body;
    const type = await createType([{ offsetMinutes: 120, channel: 'sms', templateId: template.id }]);
    const patient = await newPatient();
    const start = nextAfternoon();
    const booked = await book(patient, type, start);
    expect(booked.manageUrl.startsWith(`${PUBLIC_URL}/api/v1/public/appointments/`)).toBe(true);
    setNow(start.minus({ minutes: 120 }).toMillis() + 500);
    const [reminder] = await settled(booked.id);
    expect(reminder.status).toBe('sent');
    const sms = await eventually(async () => {
      const res = await api().get<SmsMessageDto>(`/api/v1/sms/messages/${reminder.messageId}`);
      expect(res.body.status).toBe('sent');
      return res.body;
    });
    expect(sms).toMatchObject({ transport: 'test', encoding: 'GSM-7', segments: 1 });
    expect(sms.body).toContain(`Acme Clinic: see you on ${start.toISODate()} at 15:00`);
    expect(sms.body.endsWith(` ${booked.manageUrl}`)).toBe(true);
    expect(smsSegments(sms.body)).toEqual({ encoding: 'GSM-7', segments: 1, units: sms.body.length });
  });

  it('re-plans them when the appointment moves, and a cancel cancels the ones still to go', async () => {
    const type = await createType([emailRule(120), smsRule(30)]);
    const patient = await newPatient();
    const start = nextAfternoon();
    const booked = await book(patient, type, start);
    const later = nextAfternoon().plus({ hours: 1 });

    const moved = await api().patch<AppointmentDto>(`${APPOINTMENTS}/${booked.id}`, { datetime: later.toUTC().toISO() });
    expect(moved.status).toBe(200);
    const old = booked.reminders.map((r) => ({ ...r, status: 'cancelled', reason: 'rescheduled' }));
    expect(moved.body.reminders).toEqual([
      ...old,
      expect.objectContaining({ channel: 'email', sendAt: later.minus({ minutes: 120 }).toUTC().toISO(), status: 'scheduled' }),
      expect.objectContaining({ channel: 'sms', sendAt: later.minus({ minutes: 30 }).toUTC().toISO(), status: 'scheduled' }),
    ]);

    // The old times pass: nothing goes.
    setNow(start.toMillis());
    await sleep(2_500);
    expect(emailsTo(patient.email)).toHaveLength(0);

    const cancelled = await api().patch<AppointmentDto>(`${APPOINTMENTS}/${booked.id}`, { status: 'cancelled' });
    expect(cancelled.body.reminders.slice(2).map((r) => [r.status, r.reason])).toEqual([
      ['cancelled', 'appointment_cancelled'],
      ['cancelled', 'appointment_cancelled'],
    ]);
    setNow(later.toMillis());
    await sleep(2_500);
    expect(emailsTo(patient.email)).toHaveLength(0);
    expect((await remindersOf(booked.id)).map((r) => r.status)).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled']);
  });

  it('cancels the ones still to go when an appointment is marked no-show or completed; confirming keeps them', async () => {
    const type = await createType([emailRule(60)]);
    const patient = await newPatient();
    const start = nextAfternoon();
    const ends = async (status: string, at: DateTime): Promise<[string, string | null][]> => {
      const booked = await book(patient, type, at);
      const res = await api().patch<AppointmentDto>(`${APPOINTMENTS}/${booked.id}`, { status });
      expect(res.status).toBe(200);
      return res.body.reminders.map((r): [string, string | null] => [r.status, r.reason]);
    };
    expect(await ends('confirmed', start)).toEqual([['scheduled', null]]);
    expect(await ends('no_show', start.plus({ hours: 1 }))).toEqual([['cancelled', 'appointment_no_show']]);
    expect(await ends('completed', start.plus({ hours: 2 }))).toEqual([['cancelled', 'appointment_completed']]);
  });

  it('plans them for a booking through a public booking page, and re-plans them when the patient moves it through the manage link', async () => {
    const type = await createType([emailRule(1440)]);
    const scheduler = await createScheduler(suite.app, suite.tenant.testKey, [provider.id], {
      duration: undefined,
      appointmentTypeId: type.id,
    });
    const start = nextAfternoon();
    const booked = await call<PublicBookingResultDto>(suite.app, 'POST', `/api/v1/public/schedulers/${scheduler.id}/book`, {
      body: { firstName: 'Lin', lastName: 'Page', email: `page${++phones}@reminders.test`, datetime: start.toUTC().toISO() },
    });
    expect(booked.status).toBe(201);
    const appointment = (await api().get<AppointmentDto>(`${APPOINTMENTS}/${booked.body.id}`)).body;
    expect(appointment.reminders).toEqual([
      expect.objectContaining({ channel: 'email', sendAt: start.minus({ minutes: 1440 }).toUTC().toISO(), status: 'scheduled' }),
    ]);

    const later = nextAfternoon();
    const moved = await call(suite.app, 'POST', `${new URL(appointment.manageUrl).pathname}/reschedule`, {
      body: { datetime: later.toUTC().toISO() },
    });
    expect(moved.status).toBe(200);
    expect((await remindersOf(appointment.id)).map((r) => [r.sendAt, r.status, r.reason])).toEqual([
      [start.minus({ minutes: 1440 }).toUTC().toISO(), 'cancelled', 'rescheduled'],
      [later.minus({ minutes: 1440 }).toUTC().toISO(), 'scheduled', null],
    ]);
  });

  it('skips a reminder whose time has passed at booking, and plans none for an appointment without a type', async () => {
    const type = await createType([emailRule(1440), emailRule(30)]);
    const patient = await newPatient();
    // Two hours from now, on a 15-minute boundary: the day-before reminder is already past.
    const start = DateTime.fromMillis(Math.ceil((clock.nowMs() + 120 * MINUTE) / (15 * MINUTE)) * 15 * MINUTE, { zone: NY });
    const booked = await book(patient, type, start);
    expect(booked.reminders.map((r) => [r.offsetMinutes, r.status, r.reason])).toEqual([
      [1440, 'skipped', 'past'],
      [30, 'scheduled', null],
    ]);
    const bare = await bookAppointment(suite.app, suite.tenant.testKey, {
      patientId: patient.id,
      providerId: provider.id,
      datetime: nextAfternoon().toUTC().toISO()!,
    });
    expect(bare.reminders).toEqual([]);
  });

  it('ends a reminder failed (template_missing) when its template is gone by its time, sending nothing and the others still', async () => {
    const doomed = (await api().post<EmailTemplateDto>('/api/v1/emails/templates', { name: 'Doomed', subject: 'S', textContent: 'T' }))
      .body;
    const type = await createType([{ offsetMinutes: 60, channel: 'email', templateId: doomed.id }, smsRule(60)]);
    const patient = await newPatient();
    const start = nextAfternoon();
    const booked = await book(patient, type, start);
    expect(booked.reminders.map((r) => r.status)).toEqual(['scheduled', 'scheduled']);
    // No route deletes a template; an operator's DELETE (or a restore without it) is how one goes missing.
    await dataSource(suite.app).query('DELETE FROM email_templates WHERE id = $1', [doomed.id]);
    setNow(start.minus({ hours: 1 }).toMillis() + 500);
    const [email, sms] = await settled(booked.id);
    expect(email).toMatchObject({ channel: 'email', status: 'failed', reason: 'template_missing', messageId: null });
    expect(sms).toMatchObject({ channel: 'sms', status: 'sent', messageId: expect.any(String) });
    await sleep(2_500);
    expect(emailsTo(patient.email)).toHaveLength(0);
    const events = await api().get<EventPageOf<ReminderSent>>('/api/v1/events?type=reminder.sent&limit=100');
    expect(events.body.events.filter((e) => e.data.appointmentId === booked.id).map((e) => e.data.channel)).toEqual(['sms']);
  });

  it('ends a reminder failed with the last error when its job fails on every try, and sends the others', async () => {
    const type = await createType([emailRule(60), smsRule(60)]);
    const patient = await newPatient();
    const start = nextAfternoon();
    const booked = await book(patient, type, start);
    // The database refuses this patient's emails: each try of the email reminder's job throws and rolls back.
    const db = dataSource(suite.app);
    await db.query(
      `CREATE FUNCTION refuse_reminder_email() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF NEW.patient_id = '${patient.id}' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`,
    );
    await db.query(
      'CREATE TRIGGER refuse_reminder_email BEFORE INSERT ON email_messages FOR EACH ROW EXECUTE FUNCTION refuse_reminder_email()',
    );
    try {
      setNow(start.minus({ hours: 1 }).toMillis() + 500);
      const [email, sms] = await settled(booked.id);
      expect(email).toMatchObject({ channel: 'email', status: 'failed', messageId: null });
      // The error's kind and SQLSTATE (P0001: raised by a function), never its message, which may quote data.
      expect(email.reason).toBe('gave up after 3 attempts: QueryFailedError (P0001)');
      expect(sms).toMatchObject({ channel: 'sms', status: 'sent', messageId: expect.any(String) });
    } finally {
      await db.query('DROP TRIGGER refuse_reminder_email ON email_messages');
      await db.query('DROP FUNCTION refuse_reminder_email()');
    }
    // Nothing half-written: no email row for the patient, and only the text's reminder.sent.
    const rows = await db.query<{ n: string }[]>('SELECT count(*) AS n FROM email_messages WHERE patient_id = $1', [patient.id]);
    expect(rows[0].n).toBe('0');
    const events = await api().get<EventPageOf<ReminderSent>>('/api/v1/events?type=reminder.sent&limit=100');
    expect(events.body.events.filter((e) => e.data.appointmentId === booked.id).map((e) => e.data.channel)).toEqual(['sms']);
  });

  it("suppresses a patient's reminders after their unsubscribe link and their STOP reply, which outlives the flag (live mode, texts at the fake Twilio)", async () => {
    const live = suite.tenant.liveKey;
    expect((await api(live).post('/api/v1/settings/practice', { name: 'Acme Live' })).status).toBe(200);
    const liveEmail = (
      await api(live).post<EmailTemplateDto>('/api/v1/emails/templates', { name: 'R', subject: '{{practice.name}}', textContent: 'x' })
    ).body;
    const liveSms = (
      await api(live).post<SmsTemplateDto>('/api/v1/sms/templates', { name: 'R', body: '{{practice.name}} at {{appointment.localTime}}' })
    ).body;
    const type = await createType(
      [
        { offsetMinutes: 60, channel: 'email', templateId: liveEmail.id },
        { offsetMinutes: 60, channel: 'sms', templateId: liveSms.id },
      ],
      live,
    );
    const liveProvider = await createProvider(suite.app, live, { timezone: NY, workingHours: everyDay() });
    const newLivePatient = () =>
      createPatient(suite.app, live, { email: `live${++phones}@reminders.test`, phone: `+1202555${String(3000 + phones)}` });
    const [optedOut, control] = [await newLivePatient(), await newLivePatient()];
    const start = nextAfternoon();
    const first = await book(optedOut, type, start, live, liveProvider.id);
    const second = await book(control, type, start.plus({ hours: 1 }), live, liveProvider.id);

    // The patient's own unsubscribe link, and a STOP texted to the practice's number.
    const token = suite.app.get(UnsubscribeTokens).token({ tenantId: suite.tenant.id, mode: 'live', patientId: optedOut.id });
    expect((await call(suite.app, 'POST', `/api/v1/public/unsubscribe/${token}`)).status).toBe(200);
    const inbound = '/api/v1/public/sms/twilio/inbound';
    const fields = { From: optedOut.phone ?? '', To: FROM, Body: 'STOP', MessageSid: 'SMreminderstop1' };
    const stop = await call(suite.app, 'POST', inbound, {
      rawBody: new URLSearchParams(fields).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-twilio-signature': twilio.getExpectedTwilioSignature(fake.authToken, `${PUBLIC_URL}${inbound}`, fields),
      },
    });
    expect(stop.status).toBe(200);
    expect((await api(live).get<PatientDto>(`/api/v1/patients/${optedOut.id}`)).body).toMatchObject({ emailOptOut: true, smsOptOut: true });
    // The STOP holds for the phone and the practice's number even once the record's flag is cleared through the API.
    expect((await api(live).put(`/api/v1/patients/${optedOut.id}`, { smsOptOut: false })).status).toBe(200);

    setNow(start.plus({ hours: 1, minutes: 1 }).toMillis());
    const reminders = await settled(first.id, live);
    expect(reminders.map((r) => [r.channel, r.status, r.reason])).toEqual([
      ['email', 'suppressed', 'opted_out'],
      ['sms', 'suppressed', 'opted_out'],
    ]);
    expect((await api(live).get<SmsMessageDto>(`/api/v1/sms/messages/${reminders[1].messageId}`)).body).toMatchObject({
      status: 'suppressed',
      lastError: 'the phone replied STOP to the number this practice texts from',
    });
    expect((await settled(second.id, live)).map((r) => [r.channel, r.status])).toEqual([
      ['email', 'sent'],
      ['sms', 'sent'],
    ]);
    await eventually(async () => {
      expect(fake.to(control.phone ?? '').map((m) => m.fields.Body)).toEqual(['Acme Live at 16:00']);
      expect(emailsTo(control.email)).toHaveLength(1);
    });
    await sleep(1_500);
    expect(fake.to(optedOut.phone ?? '')).toEqual([]);
    expect(emailsTo(optedOut.email)).toHaveLength(0);
    expect(fake.to(control.phone ?? '')).toHaveLength(1);
  });

  it('suppresses reminders to a patient without an email address or phone number', async () => {
    const type = await createType([emailRule(60), smsRule(60)]);
    const noContact = await newPatient({ email: undefined, phone: undefined });
    const start = nextAfternoon();
    const booked = await book(noContact, type, start);
    setNow(start.minus({ minutes: 59 }).toMillis());
    expect((await settled(booked.id)).map((r) => [r.status, r.reason, r.messageId])).toEqual([
      ['suppressed', 'no_email', null],
      ['suppressed', 'no_phone', null],
    ]);
  });

  it('suppresses a text to a phone the practice may not text (premium-rate), and still mails the patient', async () => {
    const type = await createType([emailRule(60), smsRule(60)]);
    const premium = await newPatient({ phone: '+19005550100' });
    const start = nextAfternoon();
    const booked = await book(premium, type, start);
    setNow(start.minus({ minutes: 59 }).toMillis());
    expect((await settled(booked.id)).map((r) => [r.channel, r.status, r.reason])).toEqual([
      ['email', 'sent', null],
      ['sms', 'suppressed', 'phone_not_textable'],
    ]);
  });

  it('suppresses a text to a phone outside the practice countries (default: the US of TWILIO_FROM), and still mails the patient', async () => {
    const type = await createType([emailRule(60), smsRule(60)]);
    const abroad = await newPatient({ phone: '+447400123456' });
    const start = nextAfternoon();
    const booked = await book(abroad, type, start);
    setNow(start.minus({ minutes: 59 }).toMillis());
    expect((await settled(booked.id)).map((r) => [r.channel, r.status, r.reason])).toEqual([
      ['email', 'sent', null],
      ['sms', 'suppressed', 'phone_not_textable'],
    ]);
  });

  it("holds texts in the provider's quiet hours until 08:00, across New York's daylight-saving changes, or skips them", async () => {
    for (const direction of ['forward', 'back'] as const) {
      // The clocks change at 02:00 on `day`; the appointment is at 10:00 and 08:30 that day.
      const day = nextOffsetChange(NY, direction, 3);
      const type = await createType([
        smsRule((day.set({ hour: 10 }).toMillis() - day.minus({ days: 1 }).set({ hour: 21 }).toMillis()) / MINUTE),
        smsRule(60),
      ]);
      const patient = await newPatient();
      const at10 = await book(patient, type, day.set({ hour: 10 }));
      expect(at10.reminders.map((r) => [DateTime.fromISO(r.sendAt, { zone: NY }).toFormat('yyyy-MM-dd HH:mm'), r.status])).toEqual([
        [`${day.toISODate()} 08:00`, 'scheduled'],
        [`${day.toISODate()} 09:00`, 'scheduled'],
      ]);
      // Due at 20:30 and at 08:00, outside quiet hours: both go then.
      const early = await createType([smsRule(12 * 60), smsRule(30)]);
      const at8 = await book(patient, early, day.set({ hour: 8, minute: 30 }).plus({ days: 1 }));
      expect(at8.reminders.map((r) => [DateTime.fromISO(r.sendAt, { zone: NY }).toFormat('HH:mm'), r.status, r.reason])).toEqual([
        ['20:30', 'scheduled', null],
        ['08:00', 'scheduled', null],
      ]);
      // Due at 20:00, and at 07:30, which would wait until 08:00, the start: skipped.
      const at0800 = await book(patient, early, day.set({ hour: 8 }).plus({ days: 2 }));
      expect(at0800.reminders.map((r) => [r.status, r.reason])).toEqual([
        ['scheduled', null],
        ['skipped', 'quiet_hours'],
      ]);
    }
  });

  it('plans nothing for a booking that rolls back', async () => {
    const type = await createType([emailRule(60)]);
    const patient = await newPatient();
    const scope = { tenantId: suite.tenant.id, mode: 'test' as const };
    // The booking's own path, with a step after the insert that fails (as a public booking's counter might).
    const entity = await suite.app.get(ProvidersService).require({ ...scope } as AuthContext, provider.id);
    const count = async () =>
      Number(
        (
          await dataSource(suite.app).query<{ count: string }[]>(`SELECT count(*) FROM appointment_reminders WHERE tenant_id = $1`, [
            suite.tenant.id,
          ])
        )[0].count,
      );
    const before = await count();
    const appointments = suite.app.get(AppointmentsService);
    const request = {
      start: nextAfternoon().toMillis(),
      policy: { ...durationPolicy(30), typeId: type.id, reminders: type.reminders },
      type: 'Check-up',
      notes: null,
    };
    const booking = suite.app.get(Transactions).run(async (tx) => {
      await appointments.claimSlot(scope, entity, request, tx);
      const appointment = await appointments.recordBooking(scope, entity, request, patient, tx);
      expect(appointment.reminders).toHaveLength(1);
      throw new Error('the rest of the booking failed');
    });
    await expect(booking).rejects.toThrow('the rest of the booking failed');
    expect(await count()).toBe(before);
  });

  it("records each reminder's send job with its due time in the booking's transaction, and sends one moved there by the upgrade", async () => {
    const type = await createType([emailRule(60)]);
    const patient = await newPatient();
    const start = nextAfternoon();
    const booked = await book(patient, type, start);
    const [reminder] = booked.reminders;
    const db = dataSource(suite.app);
    const jobId = `${reminder.id}_${Date.parse(reminder.sendAt)}`;
    const jobs = async () =>
      db.query<{ prefix: string; job_id: string; run_at: Date; payload: unknown }[]>(
        `SELECT prefix, job_id, run_at, payload FROM job_outbox WHERE payload->>'reminderId' = $1`,
        [reminder.id],
      );
    expect(await jobs()).toEqual([
      {
        prefix: expect.stringMatching(/\S/),
        job_id: jobId,
        run_at: new Date(reminder.sendAt),
        payload: { reminderId: reminder.id, appointmentId: booked.id, sendAt: reminder.sendAt, tenantId: suite.tenant.id, mode: 'test' },
      },
    ]);
    // As the upgrade leaves a reminder that was scheduled: its job only in the job outbox, of no prefix.
    const queue = suite.app.get<Queue>(getQueueToken(QueueName.AppointmentReminders), { strict: false });
    await eventually(async () => expect(await queue.getJobState(jobId)).toBe('delayed'));
    await queue.remove(jobId);
    // The clock moves to the reminder's time first, so that the relay adds the job due now, not timed by the old clock.
    setNow(start.minus({ minutes: 60 }).toMillis() + 500);
    await db.query(`UPDATE job_outbox SET prefix = '', added_at = NULL, available_at = now() WHERE job_id = $1`, [jobId]);
    expect((await settled(booked.id)).map((r) => r.status)).toEqual(['sent']);
    await eventually(async () => expect(emailsTo(patient.email)).toHaveLength(1));
    await eventually(async () => expect(await jobs()).toEqual([]));
  });

  it("never shows nor sends another tenant's or mode's reminders", async () => {
    const type = await createType([emailRule(60)]);
    const patient = await newPatient();
    const start = nextAfternoon();
    const booked = await book(patient, type, start);
    for (const key of [other.testKey, suite.tenant.liveKey]) {
      expect((await api(key).get(`${APPOINTMENTS}/${booked.id}`)).status).toBe(404);
      const listed = (await api(key).get<AppointmentListDto>(`${APPOINTMENTS}?limit=100`)).body.appointments;
      expect(listed.flatMap((a) => a.reminders.map((r) => r.id))).not.toContain(booked.reminders[0].id);
      const events = (await api(key).get<EventPageOf<ReminderSent>>('/api/v1/events?type=reminder.sent&limit=100')).body.events;
      expect(events.filter((e) => e.data.appointmentId === booked.id)).toEqual([]);
    }
    // The other tenant's own appointment at the same time sends its own reminder, rendered with its own practice.
    await api(other.testKey).post('/api/v1/settings/practice', { name: 'Globex' });
    const otherTemplate = (
      await api(other.testKey).post<EmailTemplateDto>('/api/v1/emails/templates', {
        name: 'R',
        subject: '{{practice.name}}',
        textContent: 'x',
      })
    ).body;
    const otherType = await createType([{ offsetMinutes: 60, channel: 'email', templateId: otherTemplate.id }], other.testKey);
    const otherProvider = await createProvider(suite.app, other.testKey, { timezone: NY, workingHours: everyDay() });
    const otherPatient = await createPatient(suite.app, other.testKey, { email: 'globex@reminders.test' });
    const otherBooked = await book(otherPatient, otherType, start, other.testKey, otherProvider.id);

    setNow(start.minus({ minutes: 59 }).toMillis());
    await settled(booked.id);
    await settled(otherBooked.id, other.testKey);
    await eventually(async () => {
      expect(emailsTo(patient.email).map((m) => m.headers.subject)).toEqual(['Your Check-up at 15:00']);
      expect(emailsTo('globex@reminders.test').map((m) => m.headers.subject)).toEqual(['Globex']);
    });
    const events = (await api(other.testKey).get<EventPageOf<ReminderSent>>('/api/v1/events?type=reminder.sent')).body.events;
    expect(events.map((e) => e.data.appointmentId)).toEqual([otherBooked.id]);
  });
});
