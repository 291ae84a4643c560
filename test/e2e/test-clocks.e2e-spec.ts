import { DateTime } from 'luxon';
import { clock } from '../../src/common/time/clock';
import { client, createKey, createTenant, Problem, TestTenant } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { bookAppointment, createProvider, everyDay, SCHEDULING } from '../helpers/scheduling';
import { useApp } from '../helpers/use-app';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AppointmentTypeDto } from '../../src/modules/scheduling/appointment-types/dto/appointment-type.dto';
import type { AvailabilityDto } from '../../src/modules/scheduling/availability/dto/availability.dto';
import type { ProviderDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type { EmailMessageListDto } from '../../src/modules/email/dto/email-message.dto';
import type { EmailTemplateDto } from '../../src/modules/email/dto/email-template.dto';
import type { SequenceCreatedDto, SequenceDto } from '../../src/modules/email/sequences/dto/sequence.dto';
import type { SmsTemplateDto } from '../../src/modules/sms/dto/sms-template.dto';
import type { TestClockAdvancedDto, TestClockDto } from '../../src/modules/test-clocks/dto/test-clock.dto';

const CLOCK = '/api/v1/test-helpers/clock';
const DAY = 86_400_000;
const MINUTE = 60_000;
const NY = 'America/New_York';

/**
 * Each tenant's test-mode clock, through the real app and its workers: advancing it runs the reminders and
 * sequence steps due by then (captured, never sent: no SMTP relay is configured for test mode), changes
 * what availability offers, and moves nothing for another tenant or for live mode.
 */
describe('Test clocks', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, PUBLIC_URL: 'https://api.acmeclinic.com' });
  let other: TestTenant;
  let provider: ProviderDto;
  let emailTemplate: EmailTemplateDto;
  let smsTemplate: SmsTemplateDto;

  const api = (key?: string) => suite.api(key);
  const clockOf = async (key?: string): Promise<TestClockDto> => (await api(key).get<TestClockDto>(CLOCK)).body;
  const advance = async (to: number, key?: string): Promise<TestClockAdvancedDto> => {
    const res = await api(key).post<TestClockAdvancedDto>(`${CLOCK}/advance`, { to: new Date(to).toISOString() });
    expect([res.status, res.text]).toEqual([200, expect.any(String)]);
    return res.body;
  };

  beforeAll(async () => {
    other = await createTenant(suite.app);
    provider = await createProvider(suite.app, suite.tenant.testKey, { name: 'Dr. Ada', timezone: NY, workingHours: everyDay() });
    emailTemplate = (
      await api().post<EmailTemplateDto>('/api/v1/emails/templates', {
        name: 'Reminder',
        subject: 'See you soon',
        textContent: 'Hi {{patient.firstName}}',
      })
    ).body;
    smsTemplate = (
      await api().post<SmsTemplateDto>('/api/v1/sms/templates', { name: 'Reminder', body: 'See you {{appointment.localTime}}' })
    ).body;
  });
  afterEach(async () => {
    expect((await api().post(`${CLOCK}/reset`)).status).toBe(200);
  });

  let phones = 0;
  const newPatient = (key = suite.tenant.testKey) =>
    createPatient(suite.app, key, { firstName: 'Grace', email: `clock${++phones}@example.test`, phone: `+1202555${4000 + phones}` });

  it('reads real time until moved; live keys have no clock; advance checks its role and its `to`', async () => {
    const before = Date.now();
    const fresh = await clockOf();
    expect(fresh.offsetMs).toBe(0);
    expect(Date.parse(fresh.now)).toBeGreaterThanOrEqual(clock.nowMs() - 5_000);
    expect(Date.parse(fresh.now)).toBeLessThanOrEqual(clock.nowMs() + 5_000);
    expect(before).toBeLessThanOrEqual(Date.now());

    for (const [method, path] of [
      ['get', CLOCK],
      ['post', `${CLOCK}/advance`],
      ['post', `${CLOCK}/reset`],
    ] as const) {
      const body = path.endsWith('advance') ? { to: new Date(clock.nowMs() + DAY).toISOString() } : undefined;
      const res = await client(suite.app, suite.tenant.liveKey)[method]<Problem>(path, body);
      expect([path, res.status, res.body.code]).toEqual([path, 404, 'not_found']);
    }

    const staff = await createKey(suite.app, suite.tenant.testKey, { role: 'STAFF', scopes: ['settings:read', 'settings:write'] });
    expect((await client(suite.app, staff).get(CLOCK)).status).toBe(200);
    const refused = await client(suite.app, staff).post<Problem>(`${CLOCK}/advance`, { to: new Date(clock.nowMs() + DAY).toISOString() });
    expect([refused.status, refused.body.code]).toEqual([403, 'insufficient_role']);

    for (const to of [
      new Date(clock.nowMs() - MINUTE).toISOString(),
      new Date(clock.nowMs() + 731 * DAY).toISOString(),
      'next tuesday',
      // A day ahead by the clock, without Z or an offset.
      new Date(clock.nowMs() + DAY).toISOString().slice(0, 19),
    ]) {
      const res = await api().post<Problem>(`${CLOCK}/advance`, { to });
      expect([to, res.status, res.body.code, res.body.errors?.map((e) => e.field)]).toEqual([to, 400, 'validation_failed', ['to']]);
    }
    expect((await clockOf()).offsetMs).toBe(0);

    const to = clock.nowMs() + 3 * DAY;
    const moved = await advance(to);
    expect(moved).toEqual({
      now: expect.any(String),
      offsetMs: expect.any(Number),
      ran: { reminders: 0, sequenceSteps: 0, holdsExpired: 0, offersExpired: 0 },
    });
    expect(Date.parse(moved.now)).toBeGreaterThanOrEqual(to);
    expect(moved.offsetMs).toBeGreaterThan(3 * DAY - 5_000);
    // It runs on, and another tenant's test mode is not moved.
    expect(Date.parse((await clockOf()).now)).toBeGreaterThanOrEqual(Date.parse(moved.now));
    expect((await clockOf(other.testKey)).offsetMs).toBe(0);
    const reset = await api().post<TestClockDto>(`${CLOCK}/reset`);
    expect([reset.status, reset.body.offsetMs]).toEqual([200, 0]);
  });

  it("runs a booking's first reminder when advanced past its time, the second when past that, and moves availability with it", async () => {
    const type = (
      await api().post<AppointmentTypeDto>(`${SCHEDULING}/appointment-types`, {
        name: 'Check-up',
        durationMinutes: 30,
        reminders: [
          { offsetMinutes: 1440, channel: 'email', templateId: emailTemplate.id },
          { offsetMinutes: 60, channel: 'sms', templateId: smsTemplate.id },
        ],
      })
    ).body;
    const patient = await newPatient();
    // 15:00 in New York a week ahead (out of quiet hours).
    const start = DateTime.fromMillis(clock.nowMs(), { zone: NY }).startOf('day').plus({ days: 7 }).set({ hour: 15 });
    const booked = await bookAppointment(suite.app, suite.tenant.testKey, {
      patientId: patient.id,
      providerId: provider.id,
      appointmentTypeId: type.id,
      datetime: start.toUTC().toISO()!,
    });
    const [emailAt, smsAt] = booked.reminders.map((r) => Date.parse(r.sendAt));
    const messagesOf = async () =>
      (await api().get<EmailMessageListDto>(`/api/v1/emails/messages?appointmentId=${booked.id}`)).body.messages;
    expect(await messagesOf()).toEqual([]);

    const first = await advance(emailAt + MINUTE);
    expect(first.ran).toEqual({ reminders: 1, sequenceSteps: 0, holdsExpired: 0, offersExpired: 0 });
    const afterFirst = (await api().get<AppointmentDto>(`${SCHEDULING}/appointments/${booked.id}`)).body.reminders;
    expect(afterFirst.map((r) => [r.channel, r.status])).toEqual([
      ['email', 'sent'],
      ['sms', 'scheduled'],
    ]);
    const [message] = await eventually(async () => {
      const messages = await messagesOf();
      expect(messages.map((m) => [m.kind, m.status, m.transport])).toEqual([['reminder', 'sent', 'test']]);
      return messages;
    });
    expect(message.id).toBe(afterFirst[0].messageId);
    // Recording times stay real: the message was created now, not on the moved clock.
    expect(Date.parse(message.createdAt)).toBeLessThan(emailAt);

    // Availability of the appointment's day: its morning is offered while the clock is before it.
    const day = { startDate: start.toISODate()!, endDate: start.toISODate()! };
    const slotsOf = async (key = suite.tenant.testKey, providerId = provider.id) =>
      (
        await client(suite.app, key).get<AvailabilityDto>(
          `${SCHEDULING}/availability?providerId=${providerId}&startDate=${day.startDate}&endDate=${day.endDate}`,
        )
      ).body.slots.map((s) => Date.parse(s.start));
    const morning = start.set({ hour: 9 }).toMillis();
    expect(await slotsOf()).toContain(morning);

    const second = await advance(start.toMillis() + 2 * 60 * MINUTE);
    expect(second.ran).toEqual({ reminders: 1, sequenceSteps: 0, holdsExpired: 0, offersExpired: 0 });
    const afterSecond = (await api().get<AppointmentDto>(`${SCHEDULING}/appointments/${booked.id}`)).body.reminders;
    expect(afterSecond.map((r) => [r.channel, r.status])).toEqual([
      ['email', 'sent'],
      ['sms', 'sent'],
    ]);
    const offered = await slotsOf();
    expect(offered).not.toContain(morning);
    expect(Math.min(...offered)).toBeGreaterThanOrEqual(start.toMillis() + 2 * 60 * MINUTE);
    expect(smsAt).toBeLessThan(start.toMillis());

    // Live mode and another tenant's test mode still read real time: that morning is free for them.
    const liveProvider = await createProvider(suite.app, suite.tenant.liveKey, {
      name: 'Dr. Live',
      timezone: NY,
      workingHours: everyDay(),
    });
    expect(await slotsOf(suite.tenant.liveKey, liveProvider.id)).toContain(morning);
    const otherProvider = await createProvider(suite.app, other.testKey, { name: 'Dr. Other', timezone: NY, workingHours: everyDay() });
    expect(await slotsOf(other.testKey, otherProvider.id)).toContain(morning);
  });

  it('runs a three-step sequence with one-day delays one step per day advanced', async () => {
    const templates = await Promise.all(
      [1, 2, 3].map(
        async (n) =>
          (await api().post<EmailTemplateDto>('/api/v1/emails/templates', { name: `Day ${n}`, subject: `Day ${n}`, textContent: 'Hello' }))
            .body.id,
      ),
    );
    const created = await api().post<SequenceCreatedDto>('/api/v1/emails/sequences', {
      name: 'Welcome',
      steps: templates.map((templateId) => ({ templateId, delayMinutes: 1440 })),
    });
    const sequence = created.body.sequence;
    expect((await api().patch<SequenceDto>(`/api/v1/emails/sequences/${sequence.id}`, { status: 'active' })).status).toBe(200);
    const patient = await newPatient();
    const enrolledAt = clock.nowMs();
    expect((await api().post(`/api/v1/emails/sequences/${sequence.id}/enroll`, { patientIds: [patient.id] })).status).toBe(202);
    const sent = async () =>
      (await api().get<EmailMessageListDto>(`/api/v1/emails/messages?sequenceId=${sequence.id}`)).body.messages.map((m) => m.step).sort();

    // Enrolled now, each step a day after the one before: advancing a day at a time runs one step each.
    for (const day of [1, 2, 3]) {
      const moved = await advance(enrolledAt + day * DAY + MINUTE);
      expect([day, moved.ran.sequenceSteps, moved.ran.reminders]).toEqual([day, 1, 0]);
      expect(await sent()).toEqual([0, 1, 2].slice(0, day));
    }
    const done = await advance(enrolledAt + 5 * DAY);
    expect(done.ran.sequenceSteps).toBe(0);
    expect(await sent()).toEqual([0, 1, 2]);
  });

  it('two concurrent advances and the running workers send every due reminder exactly once', async () => {
    const type = (
      await api().post<AppointmentTypeDto>(`${SCHEDULING}/appointment-types`, {
        name: 'Race',
        durationMinutes: 15,
        reminders: [{ offsetMinutes: 120, channel: 'email', templateId: emailTemplate.id }],
      })
    ).body;
    const start = DateTime.fromMillis(clock.nowMs(), { zone: NY }).startOf('day').plus({ days: 20 }).set({ hour: 13 });
    const booked: AppointmentDto[] = [];
    for (let i = 0; i < 8; i++) {
      const patient = await newPatient();
      booked.push(
        await bookAppointment(suite.app, suite.tenant.testKey, {
          patientId: patient.id,
          providerId: provider.id,
          appointmentTypeId: type.id,
          datetime: start
            .plus({ minutes: 15 * i })
            .toUTC()
            .toISO()!,
        }),
      );
    }
    const to = start.plus({ hours: 3 }).toMillis();
    const [a, b] = await Promise.all([advance(to), advance(to)]);
    expect(a.ran.reminders + b.ran.reminders).toBe(8);
    for (const appointment of booked) {
      const messages = (await api().get<EmailMessageListDto>(`/api/v1/emails/messages?appointmentId=${appointment.id}`)).body.messages;
      expect(messages.map((m) => m.kind)).toEqual(['reminder']);
    }
    // A worker that picks a job up afterwards (it was timed by the old clock) sends nothing more.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const total = (await api().get<EmailMessageListDto>('/api/v1/emails/messages?limit=100')).body.messages.filter((m) =>
      booked.some((x) => x.id === m.appointmentId),
    );
    expect(total).toHaveLength(8);
  });
});

describe('Test clocks without workers', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off' });

  it('answers 503 before moving the clock when no worker would run the work due', async () => {
    const provider = await createProvider(suite.app, suite.tenant.testKey, { timezone: NY, workingHours: everyDay() });
    const template = (
      await suite.api().post<EmailTemplateDto>('/api/v1/emails/templates', { name: 'Reminder', subject: 'Soon', textContent: 'Hi' })
    ).body;
    const type = (
      await suite.api().post<AppointmentTypeDto>(`${SCHEDULING}/appointment-types`, {
        name: 'Check-up',
        durationMinutes: 30,
        reminders: [{ offsetMinutes: 60, channel: 'email', templateId: template.id }],
      })
    ).body;
    const patient = await createPatient(suite.app, suite.tenant.testKey, { email: 'noworker@example.test' });
    const start = DateTime.fromMillis(clock.nowMs(), { zone: NY }).startOf('day').plus({ days: 3 }).set({ hour: 15 });
    await bookAppointment(suite.app, suite.tenant.testKey, {
      patientId: patient.id,
      providerId: provider.id,
      appointmentTypeId: type.id,
      datetime: start.toUTC().toISO()!,
    });
    const started = Date.now();
    const res = await suite.api().post<Problem>(`${CLOCK}/advance`, { to: start.toUTC().toISO() });
    expect([res.status, res.body.code]).toEqual([503, 'service_unavailable']);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await suite.api().get<TestClockDto>(CLOCK)).body.offsetMs).toBe(0);
  });
});
