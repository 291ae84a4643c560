import { DateTime } from 'luxon';
import { clock } from '../../src/common/time/clock';
import { call, client, createKey, createTenant, type Problem } from '../helpers/app';
import { nextOffsetChange } from '../helpers/dates';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { createProvider, createScheduler, everyDay, fieldsOf, SCHEDULING, type SlotUnavailable } from '../helpers/scheduling';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AppointmentTypeDto, AppointmentTypeListDto } from '../../src/modules/scheduling/appointment-types/dto/appointment-type.dto';
import type { AvailabilityDto } from '../../src/modules/scheduling/availability/dto/availability.dto';
import type { SchedulerDto } from '../../src/modules/booking-pages/dto/scheduler.dto';
import type {
  PublicAvailabilityDto,
  PublicBookingResultDto,
  PublicSchedulerDto,
  PublicSlotDto,
} from '../../src/modules/booking-pages/dto/public-scheduler.dto';
import type { EmailTemplateDto } from '../../src/modules/email/dto/email-template.dto';
import type { SmsTemplateDto } from '../../src/modules/sms/dto/sms-template.dto';

import { useApp } from '../helpers/use-app';

const TYPES = `${SCHEDULING}/appointment-types`;
const NY = 'America/New_York';
const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * Appointment types and their policies through the real app: CRUD with every range and default, and
 * availability, booking, rescheduling and public booking pages under notice, horizon, grid, buffers, daily
 * cap and providers, alone and combined, across New York's daylight-saving changes (the clock is moved to
 * just before each, as the app reads it).
 */
describe('Appointment types and booking policies', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, RATE_LIMIT_IP_PER_SECOND: '0', RATE_LIMIT_IP_PER_HOUR: '0', WORKERS: 'off' });
  const api = () => suite.api();
  const baseOffset = clock.offsetMs();
  afterEach(() => clock.setOffsetMs(baseOffset));

  /** Moves the clock the app and this test read to `instant`. */
  const setNow = (instant: number): void => clock.setOffsetMs(instant - Date.now());

  async function createType(body: Record<string, unknown> = {}, key?: string): Promise<AppointmentTypeDto> {
    const res = await suite.api(key).post<AppointmentTypeDto>(TYPES, { name: 'Visit', durationMinutes: 30, ...body });
    if (res.status !== 201) throw new Error(`type creation failed: ${res.status} ${res.text}`);
    return res.body;
  }

  /** POST /scheduling/book of one patient, provider and type at a time, with overridePolicies as given. */
  const bookOf =
    (ids: { patientId: string; providerId: string; appointmentTypeId: string }) =>
    <T = AppointmentDto>(datetime: string, overridePolicies?: boolean) =>
      api().post<T>(`${SCHEDULING}/book`, { ...ids, datetime, overridePolicies });

  /** Slot starts (ISO) of the availability query. */
  async function starts(query: Record<string, string | number>): Promise<string[]> {
    const res = await api().get<AvailabilityDto>(
      `${SCHEDULING}/availability?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString()}`,
    );
    if (res.status !== 200) throw new Error(`availability failed: ${res.status} ${res.text}`);
    return res.body.slots.map((s: { start: string }) => s.start);
  }

  const utcProvider = () => createProvider(suite.app, suite.tenant.testKey, { timezone: 'UTC', workingHours: everyDay('09:00', '17:00') });
  /** A UTC date far enough ahead that no default policy or "now" reaches it, one per call. */
  let dayCounter = 40;
  const nextDay = (): string => DateTime.fromMillis(clock.nowMs(), { zone: 'utc' }).plus({ days: dayCounter++ }).toISODate()!;
  const hhmm = (iso: string): string => iso.slice(11, 16);

  describe('CRUD', () => {
    it('creates with the defaults, reads, lists newest first and changes it', async () => {
      const res = await api().post<AppointmentTypeDto>(TYPES, { name: ' Follow-up ', durationMinutes: 20 });
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`${TYPES}/${res.body.id}`);
      expect(res.body).toEqual({
        id: expect.any(String),
        name: 'Follow-up',
        durationMinutes: 20,
        bufferBeforeMinutes: 0,
        bufferAfterMinutes: 0,
        minimumNoticeMinutes: 0,
        bookingHorizonDays: 365,
        slotIntervalMinutes: 15,
        maxPerDayPerProvider: null,
        cancellationWindowMinutes: 1440,
        providerIds: [],
        reminders: [],
        notices: { booked: true, rescheduled: true, cancelled: true },
        noticeChannels: ['email'],
        noticeTemplates: { booked: null, rescheduled: null, cancelled: null },
        waitlistOfferMinutes: 60,
        isActive: true,
        createdAt: expect.stringMatching(/Z$/),
        updatedAt: expect.stringMatching(/Z$/),
      });
      expect((await createType({ durationMinutes: 10 })).slotIntervalMinutes).toBe(10);
      expect((await api().get(`${TYPES}/${res.body.id}`)).body).toEqual(res.body);
      const list = await api().get<AppointmentTypeListDto>(`${TYPES}?limit=1`);
      expect(list.body.appointmentTypes).toHaveLength(1);
      expect(list.body.nextCursor).toEqual(expect.any(String));

      const changed = await api().patch<AppointmentTypeDto>(`${TYPES}/${res.body.id}`, {
        maxPerDayPerProvider: 4,
        bufferAfterMinutes: 5,
        durationMinutes: 25,
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ maxPerDayPerProvider: 4, bufferAfterMinutes: 5, durationMinutes: 25, slotIntervalMinutes: 15 });
      expect(
        (await api().patch<AppointmentTypeDto>(`${TYPES}/${res.body.id}`, { maxPerDayPerProvider: null })).body.maxPerDayPerProvider,
      ).toBeNull();
      const refused = await api().patch<Problem>(`${TYPES}/${res.body.id}`, { durationMinutes: null, name: null });
      expect(refused.status).toBe(400);
      expect(fieldsOf(refused.body).sort()).toEqual(['durationMinutes', 'name']);
    });

    it('refuses every member outside its range, naming each', async () => {
      const res = await api().post<Problem>(TYPES, {
        name: '',
        durationMinutes: 4,
        bufferBeforeMinutes: 241,
        bufferAfterMinutes: -1,
        minimumNoticeMinutes: 43201,
        bookingHorizonDays: 0,
        slotIntervalMinutes: 241,
        maxPerDayPerProvider: 101,
        cancellationWindowMinutes: 43201,
        reminders: [{ offsetMinutes: 0, channel: 'fax', templateId: 'x' }],
        isActive: 'yes',
      });
      expect(res.status).toBe(400);
      expect(fieldsOf(res.body).sort()).toEqual(
        [
          'name',
          'durationMinutes',
          'bufferBeforeMinutes',
          'bufferAfterMinutes',
          'minimumNoticeMinutes',
          'bookingHorizonDays',
          'slotIntervalMinutes',
          'maxPerDayPerProvider',
          'cancellationWindowMinutes',
          'reminders.0.offsetMinutes',
          'reminders.0.channel',
          'reminders.0.templateId',
          'isActive',
        ].sort(),
      );
      const edges = await api().post(TYPES, {
        name: 'Edges',
        durationMinutes: 480,
        bufferBeforeMinutes: 240,
        bufferAfterMinutes: 240,
        minimumNoticeMinutes: 43200,
        bookingHorizonDays: 730,
        slotIntervalMinutes: 240,
        maxPerDayPerProvider: 100,
        cancellationWindowMinutes: 43200,
      });
      expect(edges.status).toBe(201);
      const six = Array.from({ length: 6 }, () => ({
        offsetMinutes: 60,
        channel: 'email',
        templateId: '00000000-0000-4000-8000-000000000000',
      }));
      expect(fieldsOf((await api().post<Problem>(TYPES, { name: 'R', durationMinutes: 30, reminders: six })).body)).toEqual(['reminders']);
    });

    it('checks reminders against the templates of their channel and providers against the tenant and mode', async () => {
      const email = await api().post<EmailTemplateDto>('/api/v1/emails/templates', {
        name: 'Reminder',
        subject: 'See you',
        textContent: 'Hi',
      });
      const sms = await api().post<SmsTemplateDto>('/api/v1/sms/templates', { name: 'Reminder', body: 'See you {{patient.firstName}}' });
      const liveProvider = await createProvider(suite.app, suite.tenant.liveKey);
      const provider = await utcProvider();
      const ok = await api().post<AppointmentTypeDto>(TYPES, {
        name: 'Reminded',
        durationMinutes: 30,
        providerIds: [provider.id],
        reminders: [
          { offsetMinutes: 1440, channel: 'email', templateId: email.body.id },
          { offsetMinutes: 120, channel: 'sms', templateId: sms.body.id },
        ],
      });
      expect(ok.status).toBe(201);
      expect(ok.body.reminders).toEqual([
        { offsetMinutes: 1440, channel: 'email', templateId: email.body.id },
        { offsetMinutes: 120, channel: 'sms', templateId: sms.body.id },
      ]);
      const crossed = await api().post<Problem>(TYPES, {
        name: 'Crossed',
        durationMinutes: 30,
        providerIds: [provider.id, liveProvider.id],
        reminders: [
          { offsetMinutes: 60, channel: 'sms', templateId: email.body.id },
          { offsetMinutes: 60, channel: 'email', templateId: sms.body.id },
        ],
      });
      expect(crossed.status).toBe(400);
      expect(fieldsOf(crossed.body)).toEqual(['providerIds.1', 'reminders.0.templateId', 'reminders.1.templateId']);
      const patched = await api().patch<Problem>(`${TYPES}/${ok.body.id}`, {
        reminders: [{ offsetMinutes: 5, channel: 'email', templateId: sms.body.id }],
      });
      expect(fieldsOf(patched.body)).toEqual(['reminders.0.templateId']);
      expect((await api().get<AppointmentTypeDto>(`${TYPES}/${ok.body.id}`)).body.reminders).toHaveLength(2);
    });

    it('keeps its booking notices: which changes, by which channels, with which email templates; PATCH merges them', async () => {
      const email = await api().post<EmailTemplateDto>('/api/v1/emails/templates', {
        name: 'Notice',
        subject: 'Booked',
        textContent: 'Hi',
      });
      const sms = await api().post<SmsTemplateDto>('/api/v1/sms/templates', { name: 'Notice', body: 'Hi {{patient.firstName}}' });
      const liveEmail = await suite
        .api(suite.tenant.liveKey)
        .post<EmailTemplateDto>('/api/v1/emails/templates', { name: 'Notice', subject: 'Booked', textContent: 'Hi' });
      const type = await createType({
        notices: { cancelled: false },
        noticeChannels: ['sms', 'email'],
        noticeTemplates: { booked: email.body.id.toUpperCase() },
      });
      expect(type).toMatchObject({
        notices: { booked: true, rescheduled: true, cancelled: false },
        noticeChannels: ['sms', 'email'],
        noticeTemplates: { booked: email.body.id, rescheduled: null, cancelled: null },
      });

      const bad = await api().post<Problem>(TYPES, {
        name: 'Bad',
        durationMinutes: 30,
        notices: { booked: 'yes', sometimes: true },
        noticeChannels: ['fax'],
        noticeTemplates: { booked: sms.body.id, rescheduled: liveEmail.body.id, cancelled: 'x' },
      });
      expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
      expect(fieldsOf(bad.body).sort()).toEqual(
        ['noticeChannels', 'noticeTemplates.cancelled', 'notices.booked', 'notices.sometimes'].sort(),
      );
      for (const noticeChannels of [[], ['email', 'email'], 'email', ['sms', 'email', 'sms']]) {
        const refused = await api().post<Problem>(TYPES, { name: 'Bad', durationMinutes: 30, noticeChannels });
        expect([refused.status, fieldsOf(refused.body)]).toEqual([400, ['noticeChannels']]);
      }
      // Ids that name no email template of this tenant and mode (an SMS template's, live mode's) are checked once the shapes are right.
      const unknown = await api().post<Problem>(TYPES, {
        name: 'Bad',
        durationMinutes: 30,
        noticeTemplates: { booked: sms.body.id, rescheduled: liveEmail.body.id },
      });
      expect(fieldsOf(unknown.body)).toEqual(['noticeTemplates.booked', 'noticeTemplates.rescheduled']);

      const patched = await api().patch<AppointmentTypeDto>(`${TYPES}/${type.id}`, {
        notices: { booked: false },
        noticeChannels: ['email'],
        noticeTemplates: { booked: null, cancelled: email.body.id },
      });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({
        notices: { booked: false, rescheduled: true, cancelled: false },
        noticeChannels: ['email'],
        noticeTemplates: { booked: null, rescheduled: null, cancelled: email.body.id },
      });
      expect(fieldsOf((await api().patch<Problem>(`${TYPES}/${type.id}`, { notices: null, noticeChannels: null })).body)).toEqual([
        'notices',
        'noticeChannels',
      ]);
      const unknownPatch = await api().patch<Problem>(`${TYPES}/${type.id}`, { noticeTemplates: { rescheduled: sms.body.id } });
      expect(fieldsOf(unknownPatch.body)).toEqual(['noticeTemplates.rescheduled']);
      expect((await api().get<AppointmentTypeDto>(`${TYPES}/${type.id}`)).body).toEqual(patched.body);
    });

    it('refuses a reminder with the offset and channel of an earlier one, on create and PATCH, naming it', async () => {
      const sms = await api().post<SmsTemplateDto>('/api/v1/sms/templates', { name: 'Twice', body: 'See you {{patient.firstName}}' });
      const other = await api().post<SmsTemplateDto>('/api/v1/sms/templates', { name: 'Other', body: 'Soon, {{patient.firstName}}' });
      const email = await api().post<EmailTemplateDto>('/api/v1/emails/templates', {
        name: 'Twice',
        subject: 'See you',
        textContent: 'Hi',
      });
      const rule = { offsetMinutes: 60, channel: 'sms', templateId: sms.body.id };
      const twice = await api().post<Problem>(TYPES, { name: 'Twice', durationMinutes: 30, reminders: [rule, rule] });
      expect(twice.status).toBe(400);
      expect(twice.body.code).toBe('validation_failed');
      expect(twice.body.errors).toEqual([
        { field: 'reminders.1', message: 'repeats reminders.0: two reminders of one channel at one offset' },
      ]);
      // Another template at the same offset and channel is a duplicate too; another channel or offset is not.
      const sameTime = [rule, { offsetMinutes: 30, channel: 'sms', templateId: sms.body.id }, { ...rule, templateId: other.body.id }];
      expect(fieldsOf((await api().post<Problem>(TYPES, { name: 'Twice', durationMinutes: 30, reminders: sameTime })).body)).toEqual([
        'reminders.2',
      ]);
      const distinct = [rule, { offsetMinutes: 60, channel: 'email', templateId: email.body.id }, { ...rule, offsetMinutes: 61 }];
      const ok = await api().post<AppointmentTypeDto>(TYPES, { name: 'Distinct', durationMinutes: 30, reminders: distinct });
      expect(ok.status).toBe(201);
      const patched = await api().patch<Problem>(`${TYPES}/${ok.body.id}`, { reminders: [...distinct, rule] });
      expect(patched.status).toBe(400);
      expect(fieldsOf(patched.body)).toEqual(['reminders.3']);
      expect((await api().get<AppointmentTypeDto>(`${TYPES}/${ok.body.id}`)).body.reminders).toHaveLength(3);
    });

    it("cannot see another tenant's or mode's appointment types; needs OWNER or ADMIN to write", async () => {
      const mine = await createType();
      const other = await createTenant(suite.app);
      for (const key of [other.testKey, suite.tenant.liveKey]) {
        expect((await suite.api(key).get(`${TYPES}/${mine.id}`)).status).toBe(404);
        expect((await suite.api(key).patch(`${TYPES}/${mine.id}`, { name: 'Taken' })).status).toBe(404);
        expect((await suite.api(key).get<AppointmentTypeListDto>(TYPES)).body.appointmentTypes.map((t) => t.id)).not.toContain(mine.id);
      }
      const staff = await createKey(suite.app, suite.tenant.testKey, { name: 'staff', role: 'STAFF' });
      expect((await suite.api(staff).post<Problem>(TYPES, { name: 'No', durationMinutes: 30 })).body.code).toBe('insufficient_role');
      expect((await suite.api(staff).patch<Problem>(`${TYPES}/${mine.id}`, { name: 'No' })).body.code).toBe('insufficient_role');
      expect((await suite.api(staff).get(`${TYPES}/${mine.id}`)).status).toBe(200);
    });
  });

  describe('policies, one at a time', () => {
    it('the slot grid and the duration come from the type; a differing duration is 400', async () => {
      const provider = await utcProvider();
      const type = await createType({ durationMinutes: 30, slotIntervalMinutes: 20 });
      const day = nextDay();
      const slots = await starts({ providerId: provider.id, appointmentTypeId: type.id, startDate: day, endDate: day });
      expect(slots.slice(0, 4).map(hhmm)).toEqual(['09:00', '09:20', '09:40', '10:00']);
      expect(slots.map(hhmm)).toContain('16:20');
      expect(slots.map(hhmm)).not.toContain('16:40');
      const same = await starts({ providerId: provider.id, appointmentTypeId: type.id, duration: 30, startDate: day, endDate: day });
      expect(same).toEqual(slots);
      const bad = await api().get<Problem>(
        `${SCHEDULING}/availability?providerId=${provider.id}&appointmentTypeId=${type.id}&duration=45&startDate=${day}&endDate=${day}`,
      );
      expect(bad.status).toBe(400);
      expect(fieldsOf(bad.body)).toEqual(['duration']);
      const unknown = await api().get<Problem>(
        `${SCHEDULING}/availability?appointmentTypeId=${(await createType({}, suite.tenant.liveKey)).id}&startDate=${day}&endDate=${day}`,
      );
      expect(fieldsOf(unknown.body)).toEqual(['appointmentTypeId']);
    });

    it('keyed bookings and reschedules start on the type’s grid from the working hours’ start, in the provider’s zone, unless overridden', async () => {
      const provider = await createProvider(suite.app, suite.tenant.testKey, { timezone: NY, workingHours: everyDay('09:10', '17:00') });
      const patient = await createPatient(suite.app, suite.tenant.testKey);
      const type = await createType({ durationMinutes: 30, slotIntervalMinutes: 20 });
      const day = nextDay();
      const at = (local: string): string => DateTime.fromISO(`${day}T${local}`, { zone: NY }).toUTC().toISO()!;
      const book = bookOf({ patientId: patient.id, providerId: provider.id, appointmentTypeId: type.id });
      const offered = await starts({ providerId: provider.id, appointmentTypeId: type.id, startDate: day, endDate: day });
      expect(offered.slice(0, 3)).toEqual([at('09:10'), at('09:30'), at('09:50')].map((t) => new Date(t).toISOString()));
      // 10:00 is on a grid of the hour, not on this one (09:10 + 20 minutes × n); a second off is off too.
      for (const local of ['10:00', '10:10:13', '16:25']) {
        const off = await book<SlotUnavailable>(at(local));
        expect([local, off.status, off.body.code]).toEqual([local, 409, 'slot_unavailable']);
        expect(off.body.detail).toMatch(/slot grid/);
        // Alternatives keep the grid: the first is the next start availability offers.
        expect(off.body.alternatives[0].start).toBe(offered.find((start) => start >= new Date(at(local)).toISOString()));
      }
      const onGrid = await book(at('10:10'));
      expect(onGrid.status).toBe(201);
      const overridden = await book(at('12:47:13'), true);
      expect(overridden.status).toBe(201);
      // A keyed reschedule keeps the grid too (the override lifts it, as it lifts the other policies).
      const path = `${SCHEDULING}/appointments/${onGrid.body.id}`;
      const moved = await api().patch<SlotUnavailable>(path, { datetime: at('11:00') });
      expect([moved.status, moved.body.code]).toEqual([409, 'slot_unavailable']);
      expect((await api().patch(path, { datetime: at('11:10') })).status).toBe(200);
      expect((await api().patch(path, { datetime: at('11:15'), overridePolicies: true })).status).toBe(200);
    });

    it('a buffer blocks exactly the minutes it should, around typed appointments and for untyped searches', async () => {
      const provider = await utcProvider();
      const patient = await createPatient(suite.app, suite.tenant.testKey);
      const type = await createType({ durationMinutes: 30, slotIntervalMinutes: 5, bufferBeforeMinutes: 10, bufferAfterMinutes: 15 });
      const day = nextDay();
      const booked = await api().post(`${SCHEDULING}/book`, {
        patientId: patient.id,
        providerId: provider.id,
        appointmentTypeId: type.id,
        datetime: `${day}T12:00:00Z`,
      });
      expect(booked.status).toBe(201);
      expect(booked.body).toMatchObject({ appointmentTypeId: type.id, type: 'Visit', duration: 30 });
      // The booked one holds 11:50–12:45 with its buffers; a new one needs 10 minutes before and 15 after it.
      const typed = (await starts({ providerId: provider.id, appointmentTypeId: type.id, startDate: day, endDate: day })).map(hhmm);
      expect(typed).toContain('11:05');
      expect(typed.filter((t) => t > '11:05' && t < '12:55')).toEqual([]);
      expect(typed).toContain('12:55');
      // Without a type the new slot has no buffers, the booked one still has its own: 11:20 and 12:45 are free.
      const bare = (await starts({ providerId: provider.id, duration: 30, startDate: day, endDate: day })).map(hhmm);
      expect(bare).toContain('11:15');
      expect(bare).not.toContain('11:30');
      expect(bare).not.toContain('12:30');
      expect(bare).toContain('12:45');
      // Booking into the buffer is refused; one minute clear of it is not.
      const into = await api().post<SlotUnavailable>(`${SCHEDULING}/book`, {
        patientId: patient.id,
        providerId: provider.id,
        appointmentTypeId: type.id,
        datetime: `${day}T12:50:00Z`,
      });
      expect(into.status).toBe(409);
      expect(into.body).toMatchObject({ code: 'slot_unavailable', detail: expect.stringMatching(/buffers/) });
      expect(into.body.alternatives.map((s) => hhmm(s.start))).toEqual(['12:55', '13:00', '13:05']);
      const clear = await api().post(`${SCHEDULING}/book`, {
        patientId: patient.id,
        providerId: provider.id,
        duration: 30,
        datetime: `${day}T12:45:00Z`,
      });
      expect(clear.status).toBe(201);
    });

    it('the daily cap counts the provider’s local day, to the minute at midnight', async () => {
      const provider = await createProvider(suite.app, suite.tenant.testKey, { timezone: NY, workingHours: everyDay('00:00', '24:00') });
      const patient = await createPatient(suite.app, suite.tenant.testKey);
      const type = await createType({ durationMinutes: 30, slotIntervalMinutes: 30, maxPerDayPerProvider: 1 });
      const other = await createType({ durationMinutes: 30, slotIntervalMinutes: 30 });
      const day = DateTime.fromISO(nextDay(), { zone: NY });
      const late = day.set({ hour: 23, minute: 30 });
      const book = <T = AppointmentDto>(typeId: string, at: DateTime) =>
        api().post<T>(`${SCHEDULING}/book`, {
          patientId: patient.id,
          providerId: provider.id,
          appointmentTypeId: typeId,
          datetime: at.toUTC().toISO(),
        });
      expect((await book(other.id, day.set({ hour: 8 }))).status).toBe(201);
      expect((await book(type.id, late)).status).toBe(201);
      const query = {
        providerId: provider.id,
        appointmentTypeId: type.id,
        startDate: day.toISODate()!,
        endDate: day.plus({ days: 1 }).toISODate()!,
      };
      const slots = await starts(query);
      const local = slots.map((s) => DateTime.fromISO(s, { zone: NY }).toFormat('yyyy-MM-dd HH:mm'));
      expect(local.filter((l) => l.startsWith(day.toISODate()!))).toEqual([]);
      expect(local[0]).toBe(`${day.plus({ days: 1 }).toISODate()} 00:00`);
      const refused = await book<SlotUnavailable>(type.id, day.set({ hour: 10 }));
      expect(refused.status).toBe(409);
      expect(refused.body.detail).toMatch(/daily limit/);
      expect(refused.body.alternatives[0].start).toBe(day.plus({ days: 1 }).toUTC().toISO());
      // The other type is not capped by it.
      expect((await book(other.id, day.set({ hour: 10 }))).status).toBe(201);
    });

    it('offers and books only with the type’s providers', async () => {
      const [a, b] = [await utcProvider(), await utcProvider()];
      const patient = await createPatient(suite.app, suite.tenant.testKey);
      const type = await createType({ providerIds: [a.id] });
      const day = nextDay();
      const res = await api().get<AvailabilityDto>(
        `${SCHEDULING}/availability?appointmentTypeId=${type.id}&startDate=${day}&endDate=${day}`,
      );
      expect(new Set(res.body.slots.map((s) => s.providerId))).toEqual(new Set([a.id]));
      expect(await starts({ providerId: b.id, appointmentTypeId: type.id, startDate: day, endDate: day })).toEqual([]);
      const refused = await api().post<Problem>(`${SCHEDULING}/book`, {
        patientId: patient.id,
        providerId: b.id,
        appointmentTypeId: type.id,
        datetime: `${day}T10:00:00Z`,
      });
      expect(refused.status).toBe(400);
      expect(fieldsOf(refused.body)).toEqual(['providerId']);
      const mismatch = await api().post<Problem>(`${SCHEDULING}/book`, {
        patientId: patient.id,
        providerId: a.id,
        appointmentTypeId: type.id,
        duration: 45,
        datetime: `${day}T10:00:00Z`,
      });
      expect(fieldsOf(mismatch.body)).toEqual(['duration']);
    });

    it('overridePolicies books outside notice, horizon, buffers and cap, never onto an overlap', async () => {
      const provider = await utcProvider();
      const patient = await createPatient(suite.app, suite.tenant.testKey);
      const type = await createType({
        durationMinutes: 30,
        bufferAfterMinutes: 30,
        maxPerDayPerProvider: 1,
        minimumNoticeMinutes: 43200,
        bookingHorizonDays: 1,
      });
      const day = nextDay();
      const book = bookOf({ patientId: patient.id, providerId: provider.id, appointmentTypeId: type.id });
      const tooFar = await book<SlotUnavailable>(`${day}T10:00:00Z`);
      expect(tooFar.status).toBe(409);
      expect(tooFar.body.detail).toMatch(/horizon/);
      expect(tooFar.body.alternatives).toEqual([]);
      const overridden = await book(`${day}T10:00:00Z`, true);
      expect(overridden.status).toBe(201);
      // Inside the first one's buffer and over the cap: allowed with the override.
      expect((await book(`${day}T10:30:00Z`, false)).status).toBe(409);
      expect((await book(`${day}T10:30:00Z`, true)).status).toBe(201);
      const overlap = await book<SlotUnavailable>(`${day}T10:45:00Z`, true);
      expect(overlap.status).toBe(409);
      expect(overlap.body.detail).toMatch(/another appointment/);
      // Outside working hours stays refused.
      expect((await book(`${day}T20:00:00Z`, true)).status).toBe(409);
    });

    it('keyed reschedules keep the type’s policies; alternatives keep every policy', async () => {
      const provider = await utcProvider();
      const patient = await createPatient(suite.app, suite.tenant.testKey);
      const type = await createType({ durationMinutes: 30, slotIntervalMinutes: 30, bufferAfterMinutes: 30, maxPerDayPerProvider: 3 });
      const day = nextDay();
      const book = <T = AppointmentDto>(datetime: string) =>
        api().post<T>(`${SCHEDULING}/book`, { patientId: patient.id, providerId: provider.id, appointmentTypeId: type.id, datetime });
      const first = await book(`${day}T09:00:00Z`);
      const second = await book(`${day}T14:00:00Z`);
      expect([first.status, second.status]).toEqual([201, 201]);
      const moved = await api().patch<SlotUnavailable>(`${SCHEDULING}/appointments/${second.body.id}`, { datetime: `${day}T09:30:00Z` });
      expect(moved.status).toBe(409);
      const available = await starts({ providerId: provider.id, appointmentTypeId: type.id, startDate: day, endDate: nextDay() });
      expect(moved.body.alternatives.length).toBe(3);
      for (const alt of moved.body.alternatives) expect(available.concat([`${day}T14:00:00.000Z`])).toContain(alt.start);
      const later = await api().patch(`${SCHEDULING}/appointments/${second.body.id}`, { datetime: `${day}T10:00:00Z` });
      expect(later.status).toBe(200);
      expect(
        (await api().patch(`${SCHEDULING}/appointments/${second.body.id}`, { datetime: `${day}T09:30:00Z`, overridePolicies: true }))
          .status,
      ).toBe(200);
    });
  });

  describe('across the daylight-saving changes of America/New_York', () => {
    for (const direction of ['forward', 'back'] as const) {
      it(`notice and horizon are instants, the cap counts local days, buffers hold (clocks go ${direction})`, async () => {
        const change = nextOffsetChange(NY, direction);
        const provider = await createProvider(suite.app, suite.tenant.testKey, { timezone: NY, workingHours: everyDay('09:00', '17:00') });
        const patient = await createPatient(suite.app, suite.tenant.testKey);
        const type = await createType({
          durationMinutes: 60,
          slotIntervalMinutes: 30,
          minimumNoticeMinutes: 1440,
          bookingHorizonDays: 2,
          bufferAfterMinutes: 30,
          maxPerDayPerProvider: 3,
        });
        // The day before the change, 09:30 local: 24 hours later is 10:30 local after the change forward
        // (the day between is 23 hours long) and 08:30 local after it back (25 hours).
        // Half a minute early, so that the milliseconds the requests take do not move a slot past the notice.
        const now = change.minus({ days: 1 }).set({ hour: 9, minute: 29, second: 30 });
        setNow(now.toMillis());
        const query = {
          providerId: provider.id,
          appointmentTypeId: type.id,
          startDate: now.toISODate()!,
          endDate: change.plus({ days: 3 }).toISODate()!,
        };
        const slots = await starts(query);
        const earliest = now.toMillis() + DAY;
        const latest = now.toMillis() + 2 * DAY;
        expect(Date.parse(slots[0])).toBeGreaterThanOrEqual(earliest);
        expect(DateTime.fromISO(slots[0], { zone: NY }).toFormat('yyyy-MM-dd HH:mm')).toBe(
          `${change.toISODate()} ${direction === 'forward' ? '10:30' : '09:00'}`,
        );
        expect(Date.parse(slots[slots.length - 1])).toBeLessThanOrEqual(latest);
        // 48 hours on is 10:29:30 local on the Monday after the change forward, 08:29:30 after the change
        // back (before that Monday's hours): the last slot is Monday 10:00, or Sunday 16:00.
        expect(DateTime.fromISO(slots[slots.length - 1], { zone: NY }).toFormat('yyyy-MM-dd HH:mm')).toBe(
          direction === 'forward' ? `${change.plus({ days: 1 }).toISODate()} 10:00` : `${change.toISODate()} 16:00`,
        );

        // Three bookings on the change day reach its cap; the 30-minute buffer after each holds.
        const onChange = (hour: number, minute = 0) => change.set({ hour, minute }).toUTC().toISO()!;
        const book = <T = AppointmentDto>(datetime: string) =>
          api().post<T>(`${SCHEDULING}/book`, { patientId: patient.id, providerId: provider.id, appointmentTypeId: type.id, datetime });
        const tooSoon = await book<SlotUnavailable>(
          direction === 'forward' ? onChange(10) : now.set({ hour: 15, minute: 0, second: 0 }).toUTC().toISO()!,
        );
        expect(tooSoon.status).toBe(409);
        expect(tooSoon.body.detail).toMatch(/minimum notice/);
        expect(Date.parse(tooSoon.body.alternatives[0].start)).toBeGreaterThanOrEqual(earliest);
        expect((await book(onChange(12))).status).toBe(201);
        const tooClose = await book<SlotUnavailable>(onChange(13));
        expect(tooClose.status).toBe(409);
        expect(tooClose.body.alternatives.map((s) => s.start)).toEqual(
          [onChange(13, 30), onChange(14), onChange(14, 30)].map((s) => new Date(s).toISOString()),
        );
        expect((await book(onChange(13, 30))).status).toBe(201);
        expect((await book(onChange(15))).status).toBe(201);
        const after = await starts(query);
        expect(after.filter((s) => DateTime.fromISO(s, { zone: NY }).toISODate() === change.toISODate())).toEqual([]);
        expect(after.length).toBeLessThan(slots.length);
        if (direction === 'forward') {
          expect(after.some((s) => DateTime.fromISO(s, { zone: NY }).toISODate() === change.plus({ days: 1 }).toISODate())).toBe(true);
        }
        const capped = await book<SlotUnavailable>(onChange(10, 30));
        expect(capped.status).toBe(409);
        expect(capped.body.detail).toMatch(/daily limit/);
        expect(capped.body.alternatives.every((s) => DateTime.fromISO(s.start, { zone: NY }).toISODate() !== change.toISODate())).toBe(
          true,
        );
      });
    }
  });

  describe('schedulers with an appointment type', () => {
    it('publish the type’s duration and policies, and book through availability', async () => {
      const [a, b] = [await utcProvider(), await utcProvider()];
      const type = await createType({
        name: 'New patient',
        durationMinutes: 60,
        slotIntervalMinutes: 30,
        bufferAfterMinutes: 15,
        providerIds: [a.id],
      });
      const refused = await api().post<Problem>('/api/v1/schedulers', {
        name: 'Both',
        providerIds: [a.id],
        duration: 30,
        appointmentTypeId: type.id,
      });
      expect(fieldsOf(refused.body)).toEqual(['duration']);
      expect(fieldsOf((await api().post<Problem>('/api/v1/schedulers', { name: 'Neither', providerIds: [a.id] })).body)).toEqual([
        'duration',
      ]);
      const scheduler = await createScheduler(suite.app, suite.tenant.testKey, [a.id, b.id], {
        duration: undefined,
        appointmentTypeId: type.id,
      });
      expect(scheduler).toMatchObject({ duration: null, type: null, appointmentTypeId: type.id });
      const page = await call<PublicSchedulerDto>(suite.app, 'GET', `/api/v1/public/schedulers/${scheduler.id}`);
      expect(page.body).toMatchObject({ duration: 60, type: 'New patient', providers: [{ name: a.name, timezone: 'UTC' }] });

      const day = nextDay();
      const publicSlots = await call<PublicAvailabilityDto>(
        suite.app,
        'GET',
        `/api/v1/public/schedulers/${scheduler.id}/availability?startDate=${day}&endDate=${day}`,
      );
      const keyed = await starts({ appointmentTypeId: type.id, providerId: a.id, startDate: day, endDate: day });
      expect(publicSlots.body.slots.map((s) => s.start)).toEqual(keyed);
      expect(publicSlots.body.slots[0]).toEqual({ start: `${day}T09:00:00.000Z`, end: `${day}T10:00:00.000Z` });

      const person = { firstName: 'Ada', lastName: 'Page', email: `ada.${day}@example.com` };
      const booked = await call<PublicBookingResultDto>(suite.app, 'POST', `/api/v1/public/schedulers/${scheduler.id}/book`, {
        body: { ...person, datetime: `${day}T09:00:00Z` },
      });
      expect(booked.status).toBe(201);
      expect(booked.body).toMatchObject({ duration: 60, type: 'New patient', provider: { name: a.name } });
      // 10:00 is free of the appointment but inside its 15-minute buffer; off the grid is not offered either.
      const buffered = await call<SlotUnavailable<PublicSlotDto>>(suite.app, 'POST', `/api/v1/public/schedulers/${scheduler.id}/book`, {
        body: { ...person, datetime: `${day}T10:00:00Z` },
      });
      expect(buffered.status).toBe(409);
      expect(buffered.body.alternatives).toEqual([
        { start: `${day}T10:30:00.000Z`, end: `${day}T11:30:00.000Z` },
        { start: `${day}T11:00:00.000Z`, end: `${day}T12:00:00.000Z` },
        { start: `${day}T11:30:00.000Z`, end: `${day}T12:30:00.000Z` },
      ]);
      expect(JSON.stringify(buffered.body)).not.toContain(a.id);
      const appointment = await api().get<AppointmentDto>(`${SCHEDULING}/appointments/${booked.body.id}`);
      expect(appointment.body).toMatchObject({ appointmentTypeId: type.id, providerId: a.id });

      // Switching the page back to a bare duration needs one.
      expect(fieldsOf((await api().patch<Problem>(`/api/v1/schedulers/${scheduler.id}`, { appointmentTypeId: null })).body)).toEqual([
        'duration',
      ]);
      const bare = await api().patch<SchedulerDto>(`/api/v1/schedulers/${scheduler.id}`, { appointmentTypeId: null, duration: 20 });
      expect(bare.body).toMatchObject({ duration: 20, appointmentTypeId: null });
      const retyped = await api().patch<SchedulerDto>(`/api/v1/schedulers/${scheduler.id}`, { appointmentTypeId: type.id });
      expect(retyped.body).toMatchObject({ duration: null, type: null, appointmentTypeId: type.id });
      expect(fieldsOf((await api().patch<Problem>(`/api/v1/schedulers/${scheduler.id}`, { duration: 30 })).body)).toEqual(['duration']);
    });
  });

  it('keeps to the clock: a type’s notice moves with it', async () => {
    const provider = await createProvider(suite.app, suite.tenant.testKey, { timezone: 'UTC', workingHours: everyDay('00:00', '24:00') });
    const type = await createType({ durationMinutes: 30, slotIntervalMinutes: 30, minimumNoticeMinutes: 90 });
    const day = DateTime.fromISO(nextDay(), { zone: 'utc' });
    setNow(day.set({ hour: 10, minute: 1 }).toMillis());
    const slots = await starts({
      providerId: provider.id,
      appointmentTypeId: type.id,
      startDate: day.toISODate()!,
      endDate: day.toISODate()!,
    });
    expect(hhmm(slots[0])).toBe('12:00');
    setNow(day.set({ hour: 10 }).toMillis() - MINUTE);
    const earlier = await starts({
      providerId: provider.id,
      appointmentTypeId: type.id,
      startDate: day.toISODate()!,
      endDate: day.toISODate()!,
    });
    expect(hhmm(earlier[0])).toBe('11:30');
  });

  it('is not offered or booked while inactive', async () => {
    const provider = await utcProvider();
    const patient = await createPatient(suite.app, suite.tenant.testKey);
    const type = await createType({ isActive: false });
    const day = nextDay();
    const res = await client(suite.app, suite.tenant.testKey).post<Problem>(`${SCHEDULING}/book`, {
      patientId: patient.id,
      providerId: provider.id,
      appointmentTypeId: type.id,
      datetime: `${day}T10:00:00Z`,
    });
    expect(fieldsOf(res.body)).toEqual(['appointmentTypeId']);
  });
});
