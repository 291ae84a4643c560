import { DateTime } from 'luxon';
import { clock } from '../../src/common/time/clock';
import { call, type Problem } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { sleep } from '../helpers/processes';
import { bookAppointment, createProvider, createScheduler, everyDay, SCHEDULING } from '../helpers/scheduling';
import { type ReceivedEmail, SmtpReceiver } from '../helpers/smtp-receiver';
import { useApp } from '../helpers/use-app';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AppointmentTypeDto } from '../../src/modules/scheduling/appointment-types/dto/appointment-type.dto';
import type { ProviderDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type { PublicBookingResultDto } from '../../src/modules/booking-pages/dto/public-scheduler.dto';
import type { EmailMessageDto, EmailMessageListDto } from '../../src/modules/email/dto/email-message.dto';
import type { EmailTemplateDto } from '../../src/modules/email/dto/email-template.dto';
import type { SmsMessageListDto } from '../../src/modules/sms/dto/sms-message.dto';

const PUBLIC_URL = 'https://api.acmeclinic.com';
const NY = 'America/New_York';
const TYPES = `${SCHEDULING}/appointment-types`;
const APPOINTMENTS = `${SCHEDULING}/appointments`;
/** Per-IP limits off too: the public routes are called in bursts from one address. */
const UNLIMITED = { ...NO_RATE_LIMITS, RATE_LIMIT_IP_PER_SECOND: '0', RATE_LIMIT_IP_PER_HOUR: '0' };

/**
 * Booking notices through the real app and its workers: live-mode email reaches a real SMTP receiver,
 * test-mode messages are captured (transport "test"), and each change that calls for a notice queues
 * exactly one, in its own transaction.
 */
describe('Booking notices', () => {
  let receiver: SmtpReceiver;
  beforeAll(async () => {
    receiver = await new SmtpReceiver().start();
  });
  // No TEST_SMTP_URL: test-mode email is captured, never sent.
  const suite = useApp(() => ({ ...UNLIMITED, SMTP_URL: receiver.url, PUBLIC_URL }));
  afterAll(async () => receiver.stop());

  let liveProvider: ProviderDto;
  let testProvider: ProviderDto;
  beforeAll(async () => {
    for (const key of [suite.tenant.liveKey, suite.tenant.testKey]) {
      expect((await suite.api(key).post('/api/v1/settings/practice', { name: 'Acme Clinic' })).status).toBe(200);
    }
    const provider = { name: 'Dr. Ada Lovelace', timezone: NY, workingHours: everyDay() };
    liveProvider = await createProvider(suite.app, suite.tenant.liveKey, provider);
    testProvider = await createProvider(suite.app, suite.tenant.testKey, provider);
  });

  const live = () => suite.api(suite.tenant.liveKey);
  /** 15:00 in New York on a day of its own per call, weeks ahead (inside every type's change window). */
  let days = 20;
  const nextAfternoon = (): DateTime =>
    DateTime.fromMillis(clock.nowMs(), { zone: NY }).startOf('day').plus({ days: days++ }).set({ hour: 15 });
  const iso = (at: DateTime): string => at.toUTC().toISO()!;

  let people = 0;
  const person = (extra: Record<string, unknown> = {}) => ({
    firstName: 'Grace',
    lastName: `Hopper${++people}`,
    email: `notice${people}@patients.test`,
    ...extra,
  });

  async function createType(key: string, body: Record<string, unknown> = {}): Promise<AppointmentTypeDto> {
    const res = await suite.api(key).post<AppointmentTypeDto>(TYPES, { name: 'Check-up', durationMinutes: 30, ...body });
    if (res.status !== 201) throw new Error(`type creation failed: ${res.status} ${res.text}`);
    return res.body;
  }
  async function pageFor(key: string, provider: ProviderDto, type?: AppointmentTypeDto): Promise<string> {
    const body = type ? { appointmentTypeId: type.id, duration: undefined } : { duration: 30 };
    return (await createScheduler(suite.app, key, [provider.id], body)).id;
  }
  const publicBook = (schedulerId: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    call<PublicBookingResultDto>(suite.app, 'POST', `/api/v1/public/schedulers/${schedulerId}/book`, {
      body,
      headers,
      remoteAddress: '198.51.100.9',
    });
  const manage = <T = unknown>(manageUrl: string, action: 'cancel' | 'confirm' | 'reschedule', body?: unknown) =>
    call<T>(suite.app, 'POST', `${manageUrl.slice(PUBLIC_URL.length)}/${action}`, { body, remoteAddress: '198.51.100.9' });

  const emailsOf = async (appointmentId: string, key = suite.tenant.liveKey): Promise<EmailMessageDto[]> =>
    (await suite.api(key).get<EmailMessageListDto>(`/api/v1/emails/messages?appointmentId=${appointmentId}`)).body.messages;
  const smsOf = async (appointmentId: string, key = suite.tenant.testKey) =>
    (await suite.api(key).get<SmsMessageListDto>(`/api/v1/sms/messages?appointmentId=${appointmentId}`)).body.messages;
  const receivedBy = (address: string): ReceivedEmail[] => receiver.received.filter((m) => m.to.includes(address));
  /** Waits for `count` emails to `address` at the receiver, and answers them. */
  const arrived = (address: string, count: number): Promise<ReceivedEmail[]> =>
    eventually(async () => {
      expect(receivedBy(address)).toHaveLength(count);
      return receivedBy(address);
    }, 20_000);
  const longWhen = (at: DateTime): string => `${at.setZone(NY).setLocale('en-GB').toFormat("cccc, d LLLL yyyy 'at' HH:mm")} (${NY})`;

  it('tells a patient who booked through a booking page, by email with the .ics and the manage link', async () => {
    const page = await pageFor(suite.tenant.liveKey, liveProvider, await createType(suite.tenant.liveKey));
    const start = nextAfternoon();
    const who = person();
    const booked = await publicBook(page, { ...who, datetime: iso(start) });
    expect(booked.status).toBe(201);
    // Written with the booking: listed at once, before any worker ran.
    const [queued] = await emailsOf(booked.body.id);
    expect(queued).toMatchObject({ kind: 'booking_notice', to: who.email, appointmentId: booked.body.id, templateId: null });

    const [email] = await arrived(who.email, 1);
    expect(email.headers.subject).toBe(`Booked: Dr. Ada Lovelace, ${longWhen(start)}`);
    expect(email.text).toContain(`Your Check-up appointment with Dr. Ada Lovelace at Acme Clinic is booked for ${longWhen(start)}.`);
    expect(email.text).toContain(booked.body.manageUrl);
    expect(email.html).toContain(`href="${booked.body.manageUrl}"`);
    expect(email.calendar?.contentType).toMatch(/^text\/calendar;.*method=PUBLISH/i);
    expect(email.calendar?.body).toContain('METHOD:PUBLISH');
    expect(email.calendar?.body).toContain(`UID:${booked.body.id}`);
    expect(email.calendar?.body).toContain(`DTSTART:${start.toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'")}`);
    const sent = await eventually(async () => {
      const [message] = await emailsOf(booked.body.id);
      expect(message.status).toBe('sent');
      return message;
    });
    expect(sent).toMatchObject({ kind: 'booking_notice', transport: 'smtp', attempts: 1 });
    // The kind filters nothing away in the plain list either.
    const listed = await live().get<EmailMessageListDto>('/api/v1/emails/messages?limit=100');
    expect(listed.body.messages.filter((m) => m.appointmentId === booked.body.id).map((m) => m.kind)).toEqual(['booking_notice']);
  });

  it('tells of a reschedule and a cancellation through the manage link (METHOD:CANCEL), and of nothing else', async () => {
    const page = await pageFor(suite.tenant.liveKey, liveProvider);
    const start = nextAfternoon();
    const who = person();
    const booked = await publicBook(page, { ...who, datetime: iso(start) });
    expect(booked.status).toBe(201);
    await arrived(who.email, 1);

    // Confirming tells nothing.
    expect((await manage(booked.body.manageUrl, 'confirm')).status).toBe(200);
    const later = start.plus({ days: 1, hours: 1 });
    expect((await manage(booked.body.manageUrl, 'reschedule', { datetime: iso(later) })).status).toBe(200);
    const [, moved] = await arrived(who.email, 2);
    expect(moved.headers.subject).toBe(`Moved to ${longWhen(later)}: Dr. Ada Lovelace`);
    expect(moved.text).toContain(`has moved from ${longWhen(start)} to ${longWhen(later)}.`);
    expect(moved.text).toContain(booked.body.manageUrl);
    expect(moved.calendar?.body).toContain(`DTSTART:${later.toUTC().toFormat("yyyyMMdd'T'HHmmss'Z'")}`);

    expect((await manage(booked.body.manageUrl, 'cancel')).status).toBe(200);
    const [, , cancelled] = await arrived(who.email, 3);
    expect(cancelled.headers.subject).toBe(`Cancelled: Dr. Ada Lovelace, ${longWhen(later)}`);
    expect(cancelled.text).toContain(`on ${longWhen(later)} is cancelled.`);
    expect(cancelled.calendar?.contentType).toMatch(/method=CANCEL/i);
    expect(cancelled.calendar?.body).toContain('METHOD:CANCEL');
    expect(cancelled.calendar?.body).toContain('STATUS:CANCELLED');
    // A second cancel is refused and tells nothing.
    expect((await manage(booked.body.manageUrl, 'cancel')).status).toBe(409);
    expect((await emailsOf(booked.body.id)).map((m) => m.kind)).toEqual(['booking_notice', 'booking_notice', 'booking_notice']);
  });

  it('tells nobody from the keyed API unless the body says notifyPatient: true', async () => {
    const patient = await createPatient(suite.app, suite.tenant.liveKey, person());
    const start = nextAfternoon();
    const quiet = await bookAppointment(suite.app, suite.tenant.liveKey, {
      patientId: patient.id,
      providerId: liveProvider.id,
      datetime: iso(start),
    });
    const moved = await live().patch<AppointmentDto>(`${APPOINTMENTS}/${quiet.id}`, { datetime: iso(start.plus({ hours: 1 })) });
    expect(moved.status).toBe(200);
    expect(await emailsOf(quiet.id)).toEqual([]);

    const told = await bookAppointment(suite.app, suite.tenant.liveKey, {
      patientId: patient.id,
      providerId: liveProvider.id,
      datetime: iso(nextAfternoon()),
      notifyPatient: true,
    });
    expect((await emailsOf(told.id)).map((m) => m.kind)).toEqual(['booking_notice']);
    // An appointment without a type takes the default channels: email only.
    expect(await smsOf(told.id, suite.tenant.liveKey)).toEqual([]);
    const cancel = await live().patch<AppointmentDto>(`${APPOINTMENTS}/${told.id}`, { status: 'cancelled', notifyPatient: true });
    expect(cancel.status).toBe(200);
    const emails = await arrived(patient.email!, 2);
    expect(emails.map((e) => e.headers.subject.split(':')[0])).toEqual(['Booked', 'Cancelled']);
    expect((await emailsOf(quiet.id)).length).toBe(0);
  });

  it('refused changes tell nothing: a slot already taken leaves no notice and no message', async () => {
    const page = await pageFor(suite.tenant.liveKey, liveProvider);
    const start = nextAfternoon();
    expect((await publicBook(page, { ...person(), datetime: iso(start) })).status).toBe(201);
    const loser = person();
    const refused = await publicBook(page, { ...loser, datetime: iso(start) });
    expect([refused.status, (refused.body as unknown as Problem).code]).toEqual([409, 'slot_unavailable']);
    const all = await live().get<EmailMessageListDto>('/api/v1/emails/messages?limit=100');
    expect(all.body.messages.filter((m) => m.to === loser.email)).toEqual([]);
  });

  it('sends by SMS when the type says noticeChannels ["sms"] (captured in test mode)', async () => {
    const type = await createType(suite.tenant.testKey, { noticeChannels: ['sms'] });
    expect(type.noticeChannels).toEqual(['sms']);
    const page = await pageFor(suite.tenant.testKey, testProvider, type);
    const start = nextAfternoon();
    const booked = await publicBook(page, { ...person({ phone: '+12025550147' }), datetime: iso(start) });
    expect(booked.status).toBe(201);
    const sms = await eventually(async () => {
      const [message] = await smsOf(booked.body.id);
      expect(message.status).toBe('sent');
      return message;
    });
    const short = `${start.setZone(NY).setLocale('en-GB').toFormat('ccc d LLL HH:mm')} (${NY})`;
    expect(sms).toMatchObject({
      kind: 'booking_notice',
      to: '+12025550147',
      transport: 'test',
      body: `Acme Clinic: booked with Dr. Ada Lovelace, ${short}. Manage: ${booked.body.manageUrl}`,
      appointmentId: booked.body.id,
    });
    expect(await emailsOf(booked.body.id, suite.tenant.testKey)).toEqual([]);
  });

  it('sends nothing for a change the type turned off', async () => {
    const type = await createType(suite.tenant.liveKey, { notices: { booked: false } });
    expect(type.notices).toEqual({ booked: false, rescheduled: true, cancelled: true });
    const page = await pageFor(suite.tenant.liveKey, liveProvider, type);
    const start = nextAfternoon();
    const who = person();
    const booked = await publicBook(page, { ...who, datetime: iso(start) });
    expect(booked.status).toBe(201);
    expect(await emailsOf(booked.body.id)).toEqual([]);
    expect((await manage(booked.body.manageUrl, 'cancel')).status).toBe(200);
    const [cancelled] = await arrived(who.email, 1);
    expect(cancelled.headers.subject).toMatch(/^Cancelled: /);
  });

  it("honours an opt-out: the patient's notice is recorded suppressed and never sent", async () => {
    const patient = await createPatient(suite.app, suite.tenant.liveKey, { ...person(), emailOptOut: true });
    const booked = await bookAppointment(suite.app, suite.tenant.liveKey, {
      patientId: patient.id,
      providerId: liveProvider.id,
      datetime: iso(nextAfternoon()),
      notifyPatient: true,
    });
    const [message] = await emailsOf(booked.id);
    expect(message).toMatchObject({ kind: 'booking_notice', status: 'suppressed' });
    await sleep(1_000);
    expect(receivedBy(patient.email!)).toEqual([]);
    expect((await emailsOf(booked.id))[0].status).toBe('suppressed');
  });

  it('captures test-mode notices (transport "test"): nothing reaches the relay', async () => {
    const page = await pageFor(suite.tenant.testKey, testProvider);
    const who = person();
    const booked = await publicBook(page, { ...who, datetime: iso(nextAfternoon()) });
    expect(booked.status).toBe(201);
    const message = await eventually(async () => {
      const [m] = await emailsOf(booked.body.id, suite.tenant.testKey);
      expect(m.status).toBe('sent');
      return m;
    });
    expect(message).toMatchObject({ kind: 'booking_notice', transport: 'test', to: who.email });
    expect(message.textBody).toContain(booked.body.manageUrl);
    await sleep(500);
    expect(receivedBy(who.email)).toEqual([]);
  });

  it('an Idempotency-Key replay of a public booking queues no second notice', async () => {
    const page = await pageFor(suite.tenant.liveKey, liveProvider);
    const who = person();
    const body = { ...who, datetime: iso(nextAfternoon()) };
    const headers = { 'idempotency-key': 'notice-retry-1' };
    const first = await publicBook(page, body, headers);
    const again = await publicBook(page, body, headers);
    expect([first.status, again.status, again.headers['idempotent-replayed']]).toEqual([201, 201, 'true']);
    await arrived(who.email, 1);
    await sleep(1_000);
    expect(receivedBy(who.email)).toHaveLength(1);
    expect(await emailsOf(first.body.id)).toHaveLength(1);
  });

  it("uses the type's own template, which sees the reminder context and the notice", async () => {
    const template = await live().post<EmailTemplateDto>('/api/v1/emails/templates', {
      name: 'Booked notice',
      subject: '{{notice.event}}: {{appointment.localDate}} {{appointment.localTime}}',
      textContent:
        'Dear {{patient.firstName}}, {{appointment.typeName}} with {{appointment.providerName}} ({{appointment.timezone}}). {{appointment.manageUrl}}',
    });
    expect(template.status).toBe(201);
    const unknown = await live().post<Problem>(TYPES, {
      name: 'Bad',
      durationMinutes: 30,
      noticeTemplates: { booked: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40' },
    });
    expect([unknown.status, unknown.body.code, unknown.body.errors?.map((e) => e.field)]).toEqual([
      400,
      'validation_failed',
      ['noticeTemplates.booked'],
    ]);
    const type = await createType(suite.tenant.liveKey, { name: 'Consultation', noticeTemplates: { booked: template.body.id } });
    expect(type.noticeTemplates).toEqual({ booked: template.body.id, rescheduled: null, cancelled: null });
    const page = await pageFor(suite.tenant.liveKey, liveProvider, type);
    const start = nextAfternoon();
    const who = person();
    const booked = await publicBook(page, { ...who, datetime: iso(start) });
    expect(booked.status).toBe(201);
    const [email] = await arrived(who.email, 1);
    const local = start.setZone(NY);
    expect(email.headers.subject).toBe(`booked: ${local.toISODate()} 15:00`);
    expect(email.text).toBe(`Dear Grace, Consultation with Dr. Ada Lovelace (${NY}). ${booked.body.manageUrl}`);
    expect(email.calendar?.body).toContain(`UID:${booked.body.id}`);
    expect((await emailsOf(booked.body.id))[0].templateId).toBe(template.body.id);
    // The other changes keep the built-in text.
    expect((await manage(booked.body.manageUrl, 'cancel')).status).toBe(200);
    const [, cancelled] = await arrived(who.email, 2);
    expect(cancelled.headers.subject).toMatch(/^Cancelled: /);
  });
});
