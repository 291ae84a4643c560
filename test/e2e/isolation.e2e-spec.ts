import { clock } from '../../src/common/time/clock';
import { createTenant, type Problem, TestTenant } from '../helpers/app';
import type { ApiKeyListDto, CreatedApiKeyDto } from '../../src/modules/api-keys/dto/api-key.dto';
import type { EmailTemplateDto } from '../../src/modules/email/dto/email-template.dto';
import type { EventListDto } from '../../src/modules/events/dto/event.dto';
import type { PatientDto } from '../../src/modules/patients/dto/patient.dto';
import type { AppointmentListDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AppointmentTypeDto, AppointmentTypeListDto } from '../../src/modules/scheduling/appointment-types/dto/appointment-type.dto';
import type { HoldDto } from '../../src/modules/scheduling/holds/dto/hold.dto';
import type { SeriesDto, SeriesListDto } from '../../src/modules/scheduling/series/dto/series.dto';
import type { WaitlistEntryDto, WaitlistEntryListDto } from '../../src/modules/scheduling/waitlist/dto/waitlist.dto';
import type { SettingsDto } from '../../src/modules/settings/dto/settings.dto';
import { SmsNumbersService } from '../../src/modules/sms-numbers';
import type { SmsMessageListDto, SmsSendAcceptedDto } from '../../src/modules/sms/dto/sms-message.dto';
import { utcDate } from '../helpers/dates';
import { createPatient } from '../helpers/patients';
import { bookAppointment, createProvider, everyDay } from '../helpers/scheduling';
import { useApp } from '../helpers/use-app';

const KEYS = '/api/v1/settings/portal-access-keys';

describe('Tenant and mode isolation', () => {
  const suite = useApp();
  let acme: TestTenant;
  let globex: TestTenant;

  beforeAll(async () => {
    acme = suite.tenant;
    globex = await createTenant(suite.app, 'Globex');
    await suite.api(acme.testKey).post('/api/v1/settings/practice', { name: 'Acme staging' });
    await suite.api(acme.liveKey).post('/api/v1/settings/practice', { name: 'Acme production' });
    await suite.api(globex.testKey).post('/api/v1/settings/practice', { name: 'Globex staging' });
  });

  it("moves one tenant's test clock only: another tenant's test mode and live mode stay on real time", async () => {
    const CLOCK = '/api/v1/test-helpers/clock';
    const to = new Date(clock.nowMs() + 10 * 86_400_000).toISOString();
    expect((await suite.api(acme.testKey).post(`${CLOCK}/advance`, { to })).status).toBe(200);
    try {
      expect((await suite.api(acme.testKey).get<{ offsetMs: number }>(CLOCK)).body.offsetMs).toBeGreaterThan(9 * 86_400_000);
      expect((await suite.api(globex.testKey).get<{ offsetMs: number }>(CLOCK)).body.offsetMs).toBe(0);
      expect((await suite.api(acme.liveKey).get<Problem>(CLOCK)).body.code).toBe('not_found');
    } finally {
      expect((await suite.api(acme.testKey).post(`${CLOCK}/reset`)).status).toBe(200);
    }
  });

  it("cannot see another tenant's settings", async () => {
    expect((await suite.api(acme.testKey).get<SettingsDto>('/api/v1/settings/practice')).body.settings).toEqual({
      name: 'Acme staging',
    });
    expect((await suite.api(globex.testKey).get<SettingsDto>('/api/v1/settings/practice')).body.settings).toEqual({
      name: 'Globex staging',
    });
    expect((await suite.api(globex.liveKey).get<SettingsDto>('/api/v1/settings/practice')).body.settings).toEqual({});
  });

  it("cannot see, change or book another tenant's or mode's appointment types", async () => {
    const TYPES = '/api/v1/scheduling/appointment-types';
    const type = (await suite.api(globex.testKey).post<AppointmentTypeDto>(TYPES, { name: 'Globex visit', durationMinutes: 30 })).body;
    for (const key of [acme.testKey, globex.liveKey]) {
      expect((await suite.api(key).get(`${TYPES}/${type.id}`)).status).toBe(404);
      expect((await suite.api(key).patch(`${TYPES}/${type.id}`, { name: 'Mine now' })).status).toBe(404);
      expect((await suite.api(key).get<AppointmentTypeListDto>(TYPES)).body.appointmentTypes).toEqual([]);
      const availability = await suite
        .api(key)
        .get<Problem>(`/api/v1/scheduling/availability?appointmentTypeId=${type.id}&startDate=2030-01-07&endDate=2030-01-08`);
      expect([availability.status, availability.body.errors]).toEqual([400, [{ field: 'appointmentTypeId', message: expect.any(String) }]]);
    }
    expect((await suite.api(globex.testKey).get<AppointmentTypeDto>(`${TYPES}/${type.id}`)).body.name).toBe('Globex visit');
  });

  it('keeps test and live settings of one tenant apart', async () => {
    expect((await suite.api(acme.liveKey).get<SettingsDto>('/api/v1/settings/practice')).body.settings).toEqual({
      name: 'Acme production',
    });
  });

  it("cannot see or take another tenant's SMS number", async () => {
    await suite.app.get(SmsNumbersService).assign({ tenantId: globex.id, mode: 'live' }, '+15005550201');
    const practice = async (key: string): Promise<Record<string, unknown>> =>
      (await suite.api(key).get<SettingsDto>('/api/v1/settings/practice')).body.settings;
    expect(await practice(globex.liveKey)).toEqual({ smsFromNumber: '+15005550201' });
    expect(await practice(globex.testKey)).toEqual({ name: 'Globex staging' });
    expect(await practice(acme.liveKey)).toEqual({ name: 'Acme production' });
    const takeover = await suite.api(acme.liveKey).post<Problem>('/api/v1/settings/practice', { smsFromNumber: '+15005550201' });
    expect([takeover.status, takeover.body.errors?.map((e) => e.field)]).toEqual([400, ['smsFromNumber']]);
    expect(await practice(acme.liveKey)).toEqual({ name: 'Acme production' });
  });

  it("cannot see or revoke another tenant's API keys", async () => {
    const globexKey = await suite.api(globex.testKey).post<CreatedApiKeyDto>(KEYS, { name: 'globex integration' });
    const acmeList = await suite.api(acme.testKey).get<ApiKeyListDto>(KEYS);
    expect(acmeList.body.keys.map((k) => k.id)).not.toContain(globexKey.body.id);
    const del = await suite.api(acme.testKey).delete<Problem>(`${KEYS}/${globexKey.body.id}`);
    expect(del.status).toBe(404);
    expect(del.body.code).toBe('not_found');
    expect((await suite.api(globexKey.body.key).get('/api/v1/me')).status).toBe(200);
  });

  it("cannot see another tenant's or mode's SMS messages, nor send to its patients", async () => {
    const patient = await createPatient(suite.app, acme.testKey, { phone: '+12025550142' });
    const sent = await suite.api(acme.testKey).post<SmsSendAcceptedDto>('/api/v1/sms/send', {
      patientId: patient.id,
      body: 'Hello',
    });
    expect(sent.status).toBe(202);
    const id = sent.body.messageId;
    expect((await suite.api(acme.testKey).get(`/api/v1/sms/messages/${id}`)).status).toBe(200);
    for (const key of [globex.testKey, globex.liveKey, acme.liveKey]) {
      const one = await suite.api(key).get<Problem>(`/api/v1/sms/messages/${id}`);
      expect(one.status).toBe(404);
      expect(one.body.code).toBe('not_found');
      const list = await suite.api(key).get<SmsMessageListDto>(`/api/v1/sms/messages?patientId=${patient.id}`);
      expect(list.status).toBe(200);
      expect(list.body.messages).toEqual([]);
      const send = await suite.api(key).post<Problem>('/api/v1/sms/send', { patientId: patient.id, body: 'Hello' });
      expect(send.status).toBe(400);
      expect(send.body.errors).toEqual([{ field: 'patientId', message: 'names no patient of this tenant and mode' }]);
    }
  });

  it("a test key cannot see or revoke the same tenant's live keys, and the reverse", async () => {
    const liveKey = await suite.api(acme.liveKey).post<CreatedApiKeyDto>(KEYS, { name: 'live integration' });
    const testList = await suite.api(acme.testKey).get<ApiKeyListDto>(KEYS);
    expect(testList.body.keys.every((k) => k.mode === 'test')).toBe(true);
    expect((await suite.api(acme.testKey).delete(`${KEYS}/${liveKey.body.id}`)).status).toBe(404);

    const testKey = await suite.api(acme.testKey).post<CreatedApiKeyDto>(KEYS, { name: 'test integration' });
    const liveList = await suite.api(acme.liveKey).get<ApiKeyListDto>(KEYS);
    expect(liveList.body.keys.every((k) => k.mode === 'live')).toBe(true);
    expect((await suite.api(acme.liveKey).delete(`${KEYS}/${testKey.body.id}`)).status).toBe(404);
  });

  it("cannot see another tenant's or mode's patient access log", async () => {
    const patient = await suite.api(acme.testKey).post<PatientDto>('/api/v1/patients', { firstName: 'Iso', lastName: 'Lated' });
    expect(patient.status).toBe(201);
    const log = `/api/v1/patients/${patient.body.id}/access-log`;
    expect((await suite.api(acme.testKey).get(log)).status).toBe(200);
    for (const key of [globex.testKey, globex.liveKey, acme.liveKey]) {
      const res = await suite.api(key).get<Problem>(log);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
  });

  it("cannot see another tenant's or mode's appointment reminders, nor their reminder.sent events", async () => {
    const template = await suite.api(globex.testKey).post<EmailTemplateDto>('/api/v1/emails/templates', {
      name: 'R',
      subject: 'Soon',
      textContent: 'x',
    });
    const type = await suite.api(globex.testKey).post<AppointmentTypeDto>('/api/v1/scheduling/appointment-types', {
      name: 'Reminded',
      durationMinutes: 30,
      reminders: [{ offsetMinutes: 60, channel: 'email', templateId: template.body.id }],
    });
    const provider = await createProvider(suite.app, globex.testKey, { timezone: 'UTC', workingHours: everyDay() });
    const patient = await createPatient(suite.app, globex.testKey, { email: 'iso@reminders.test' });
    const booked = await bookAppointment(suite.app, globex.testKey, {
      patientId: patient.id,
      providerId: provider.id,
      appointmentTypeId: type.body.id,
      datetime: `${utcDate(20)}T10:00:00.000Z`,
    });
    expect(booked.reminders).toEqual([expect.objectContaining({ channel: 'email', status: 'scheduled' })]);
    // Another tenant's template cannot be a reminder of a type either.
    const foreign = await suite.api(acme.testKey).post<Problem>('/api/v1/scheduling/appointment-types', {
      name: 'Borrowed',
      durationMinutes: 30,
      reminders: [{ offsetMinutes: 60, channel: 'email', templateId: template.body.id }],
    });
    expect([foreign.status, foreign.body.errors?.[0]?.field]).toEqual([400, 'reminders.0.templateId']);
    for (const key of [acme.testKey, acme.liveKey, globex.liveKey]) {
      expect((await suite.api(key).get(`/api/v1/scheduling/appointments/${booked.id}`)).status).toBe(404);
      const list = await suite.api(key).get<AppointmentListDto>('/api/v1/scheduling/appointments?limit=100');
      expect(list.body.appointments.flatMap((a) => a.reminders.map((r) => r.id))).not.toContain(booked.reminders[0].id);
      expect((await suite.api(key).get<EventListDto>('/api/v1/events?type=reminder.sent')).body.events).toEqual([]);
    }
  });

  it("cannot see, release or book another tenant's or mode's hold", async () => {
    const HOLDS = '/api/v1/scheduling/holds';
    const provider = await createProvider(suite.app, globex.testKey, { timezone: 'UTC', workingHours: everyDay() });
    const datetime = `${utcDate(21)}T10:00:00.000Z`;
    const hold = await suite.api(globex.testKey).post<HoldDto>(HOLDS, { providerId: provider.id, datetime, duration: 30 });
    expect(hold.status).toBe(201);
    for (const key of [acme.testKey, acme.liveKey, globex.liveKey]) {
      for (const res of [
        await suite.api(key).get<Problem>(`${HOLDS}/${hold.body.id}`),
        await suite.api(key).delete<Problem>(`${HOLDS}/${hold.body.id}`),
      ]) {
        expect([res.status, res.body.code]).toEqual([404, 'not_found']);
      }
      const patient = await createPatient(suite.app, key);
      const book = await suite.api(key).post<Problem>('/api/v1/scheduling/book', { patientId: patient.id, holdId: hold.body.id });
      expect([book.status, book.body.errors]).toEqual([400, [{ field: 'holdId', message: 'names no hold of this tenant and mode' }]]);
      const foreign = await suite.api(key).post<Problem>(HOLDS, { providerId: provider.id, datetime, duration: 30 });
      expect([foreign.status, foreign.body.errors?.map((e) => e.field)]).toEqual([400, ['providerId']]);
    }
    expect((await suite.api(globex.testKey).get<HoldDto>(`${HOLDS}/${hold.body.id}`)).body.status).toBe('active');
  });

  it("cannot see, change or cancel another tenant's or mode's recurring series, nor book one on its records", async () => {
    const SERIES = '/api/v1/scheduling/series';
    const provider = await createProvider(suite.app, globex.testKey, { timezone: 'UTC', workingHours: everyDay() });
    const patient = await createPatient(suite.app, globex.testKey);
    const created = await suite.api(globex.testKey).post<SeriesDto>(SERIES, {
      patientId: patient.id,
      providerId: provider.id,
      start: `${utcDate(30)}T10:00`,
      rrule: 'FREQ=WEEKLY;COUNT=2',
    });
    expect(created.status).toBe(201);
    const series = created.body;
    const first = series.occurrences[0].appointmentId;
    for (const key of [acme.testKey, acme.liveKey, globex.liveKey]) {
      const api = suite.api(key);
      expect((await api.get<Problem>(`${SERIES}/${series.id}`)).body.code).toBe('not_found');
      expect((await api.patch<Problem>(`${SERIES}/${series.id}`, { scope: 'all', changes: { localTime: '11:00' } })).status).toBe(404);
      expect((await api.post<Problem>(`${SERIES}/${series.id}/cancel`, { scope: 'following', from: first })).status).toBe(404);
      expect((await api.get<SeriesListDto>(`${SERIES}?patientId=${patient.id}`)).body.series).toEqual([]);
      const borrowed = await api.post<Problem>(SERIES, {
        patientId: patient.id,
        providerId: provider.id,
        start: `${utcDate(40)}T10:00`,
        rrule: 'FREQ=DAILY;COUNT=2',
      });
      expect([borrowed.status, borrowed.body.errors?.map((e) => e.field)]).toEqual([400, ['patientId', 'providerId']]);
    }
    expect((await suite.api(globex.testKey).get<SeriesDto>(`${SERIES}/${series.id}`)).body).toEqual(series);
  });

  it("cannot see, list or cancel another tenant's or mode's waitlist entry, nor put their patient on it", async () => {
    const WAITLIST = '/api/v1/scheduling/waitlist';
    const type = await suite.api(globex.testKey).post<AppointmentTypeDto>('/api/v1/scheduling/appointment-types', {
      name: 'Waited for',
      durationMinutes: 30,
    });
    const patient = await createPatient(suite.app, globex.testKey, { email: 'iso@waitlist.test' });
    const entry = await suite
      .api(globex.testKey)
      .post<WaitlistEntryDto>(WAITLIST, { patientId: patient.id, appointmentTypeId: type.body.id });
    expect(entry.status).toBe(201);
    for (const key of [acme.testKey, acme.liveKey, globex.liveKey]) {
      for (const res of [
        await suite.api(key).get<Problem>(`${WAITLIST}/${entry.body.id}`),
        await suite.api(key).delete<Problem>(`${WAITLIST}/${entry.body.id}`),
      ]) {
        expect([res.status, res.body.code]).toEqual([404, 'not_found']);
      }
      expect((await suite.api(key).get<WaitlistEntryListDto>(`${WAITLIST}?limit=100`)).body.entries.map((e) => e.id)).not.toContain(
        entry.body.id,
      );
      const foreign = await suite.api(key).post<Problem>(WAITLIST, { patientId: patient.id, appointmentTypeId: type.body.id });
      expect([foreign.status, foreign.body.errors?.map((e) => e.field).sort()]).toEqual([400, ['appointmentTypeId', 'patientId']]);
    }
    expect((await suite.api(globex.testKey).get<WaitlistEntryDto>(`${WAITLIST}/${entry.body.id}`)).body.status).toBe('waiting');
  });
});
