import { DateTime } from 'luxon';
import { clock } from '../../src/common/time/clock';
import { UnsubscribeTokens } from '../../src/modules/email/unsubscribe-tokens.service';
import { AppointmentsService } from '../../src/modules/scheduling/appointments/appointments.service';
import { ManageTokens } from '../../src/modules/scheduling/self-service/manage-tokens';
import { call, createTenant, dataSource, type Problem } from '../helpers/app';
import { auditEntries } from '../helpers/audit';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { bookAppointment, createProvider, everyDay, fieldsOf, SCHEDULING, type SlotUnavailable } from '../helpers/scheduling';
import { type AppointmentChanged, type EventPageOf } from '../helpers/events';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AppointmentTypeDto } from '../../src/modules/scheduling/appointment-types/dto/appointment-type.dto';
import type { AvailabilityDto } from '../../src/modules/scheduling/availability/dto/availability.dto';
import type { ProviderDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type {
  PublicAppointmentDto,
  PublicManageAvailabilityDto,
  PublicManageSlotDto,
} from '../../src/modules/scheduling/self-service/dto/public-appointment.dto';

import { useApp } from '../helpers/use-app';

const MINUTE = 60_000;
const PUBLIC_FIELDS = [
  'id',
  'status',
  'datetime',
  'end',
  'durationMinutes',
  'timezone',
  'providerName',
  'appointmentTypeName',
  'practiceName',
  'canConfirm',
  'canCancel',
  'canReschedule',
  'changeDeadline',
].sort();

/**
 * A patient's manage link through the real app: the public routes, the change window at its edge (the
 * clock the app reads is moved around the deadline), final statuses, forged and foreign tokens, racing
 * reschedules, and the events and audit entries the changes leave in the appointment's tenant.
 */
describe('Manage links: /public/appointments/{token}', () => {
  const suite = useApp({
    ...NO_RATE_LIMITS,
    RATE_LIMIT_IP_PER_SECOND: '0',
    RATE_LIMIT_IP_PER_HOUR: '0',
    WORKERS: 'off',
    AUDIT_FLUSH_INTERVAL_MS: '50',
  });
  const baseOffset = clock.offsetMs();
  afterEach(() => clock.setOffsetMs(baseOffset));
  const setNow = (instant: number): void => clock.setOffsetMs(instant - Date.now());

  let dayCounter = 20;
  const nextDay = (): string => DateTime.fromMillis(clock.nowMs(), { zone: 'utc' }).plus({ days: dayCounter++ }).toISODate()!;
  const pathOf = (manageUrl: string): string => new URL(manageUrl).pathname;
  const idOf = (manageUrl: string): string => pathOf(manageUrl).split('/').pop()!;
  const pub = <T = PublicAppointmentDto>(method: 'GET' | 'POST', path: string, body?: unknown, headers?: Record<string, string>) =>
    call<T>(suite.app, method, path, { body, headers, remoteAddress: '198.51.100.9' });

  /** A provider (UTC, every day 09–17), a patient and an appointment at `datetime`; answers the appointment. */
  async function booked(
    datetime: string,
    body: Record<string, unknown> = {},
    key = suite.tenant.testKey,
  ): Promise<AppointmentDto & { provider: ProviderDto }> {
    const provider =
      (body.provider as ProviderDto | undefined) ??
      (await createProvider(suite.app, key, { timezone: 'UTC', workingHours: everyDay('09:00', '17:00') }));
    const patient = await createPatient(suite.app, key, { email: 'pat@example.com', phone: '+14155550100' });
    const rest = { ...body };
    delete rest.provider;
    return { ...(await bookAppointment(suite.app, key, { patientId: patient.id, providerId: provider.id, datetime, ...rest })), provider };
  }

  const createType = async (body: Record<string, unknown>) =>
    (await suite.api().post<AppointmentTypeDto>(`${SCHEDULING}/appointment-types`, { name: 'Check-up', durationMinutes: 30, ...body }))
      .body;
  const events = async (type: string) =>
    (await suite.api().get<EventPageOf<AppointmentChanged>>(`/api/v1/events?type=${type}`)).body.events;

  it('shows the visit and nothing of the patient; a page with Confirm, Cancel and Reschedule for a browser', async () => {
    await suite.api().post('/api/v1/settings/practice', { name: 'Riverside <Clinic>' });
    const type = await createType({ name: 'Check-up', cancellationWindowMinutes: 120 });
    const day = nextDay();
    const appointment = await booked(`${day}T10:00:00Z`, { appointmentTypeId: type.id });
    expect(appointment.manageUrl).toMatch(/^http:\/\/127\.0\.0\.1:3000\/api\/v1\/public\/appointments\/[0-9A-Za-z]{16}$/);
    const res = await pub('GET', pathOf(appointment.manageUrl), undefined, { origin: 'https://patient.example' });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(Object.keys(res.body).sort()).toEqual(PUBLIC_FIELDS);
    expect(res.body).toEqual({
      id: appointment.id,
      status: 'scheduled',
      datetime: `${day}T10:00:00.000Z`,
      end: `${day}T10:30:00.000Z`,
      durationMinutes: 30,
      timezone: 'UTC',
      providerName: appointment.provider.name,
      appointmentTypeName: 'Check-up',
      practiceName: 'Riverside <Clinic>',
      canConfirm: true,
      canCancel: true,
      canReschedule: true,
      changeDeadline: `${day}T08:00:00.000Z`,
    });
    expect(res.text).not.toMatch(/pat@example|4155550100|First|Last/);

    const page = await pub('GET', pathOf(appointment.manageUrl), undefined, { accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('Riverside &lt;Clinic&gt;');
    for (const action of ['confirm', 'cancel']) expect(page.text).toContain(`action="${pathOf(appointment.manageUrl)}/${action}"`);
    expect(page.text).toMatch(/<h2>Reschedule<\/h2>.*action="[^"]+\/reschedule\?datetime=/s);
    expect(page.text).not.toContain('pat@example.com');
    // Opening the page changed nothing.
    expect((await suite.api().get<AppointmentDto>(`${SCHEDULING}/appointments/${appointment.id}`)).body.status).toBe('scheduled');
  });

  it('confirms and cancels through the same rules and events as the keyed API, audited in the tenant without a key', async () => {
    const day = nextDay();
    const appointment = await booked(`${day}T11:00:00Z`);
    const path = pathOf(appointment.manageUrl);
    const confirmed = await pub('POST', `${path}/confirm`);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ status: 'confirmed', canConfirm: false, canCancel: true });
    const keyed = (await suite.api().get<AppointmentDto>(`${SCHEDULING}/appointments/${appointment.id}`)).body;
    expect(keyed.confirmedAt).toEqual(expect.stringMatching(/Z$/));
    expect((await pub('POST', `${path}/confirm`)).status).toBe(200);
    const confirmedEvents = (await events('appointment.confirmed')).filter((e) => e.data.appointment.id === appointment.id);
    expect(confirmedEvents.map((e) => e.data)).toEqual([
      { appointment: keyed, previous: { status: 'scheduled', confirmedAt: null }, source: 'patient_link' },
    ]);

    const cancelled = await pub('POST', `${path}/cancel`);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', canCancel: false, canReschedule: false });
    const after = (await suite.api().get<AppointmentDto>(`${SCHEDULING}/appointments/${appointment.id}`)).body;
    expect(after.cancelledAt).toEqual(expect.stringMatching(/Z$/));
    const [cancelEvent] = (await events('appointment.cancelled')).filter((e) => e.data.appointment.id === appointment.id);
    expect(cancelEvent.data).toEqual({ appointment: after, previous: { status: 'confirmed', cancelledAt: null }, source: 'patient_link' });
    // The slot is free again.
    const slots = await suite
      .api()
      .get<AvailabilityDto>(`${SCHEDULING}/availability?providerId=${appointment.provider.id}&startDate=${day}&endDate=${day}`);
    expect(slots.body.slots.map((s) => s.start)).toContain(`${day}T11:00:00.000Z`);

    // Final: every change is invalid_transition.
    for (const [route, body] of [['confirm'], ['cancel'], ['reschedule', { datetime: `${day}T14:00:00Z` }]] as const) {
      const res = await pub<Problem>('POST', `${path}/${route}`, body);
      expect([res.status, res.body.code]).toEqual([409, 'invalid_transition']);
    }
    const entries = await auditEntries(suite.app, suite.tenant.testKey, `resourceId=${appointment.id}&action=appointment.public_cancel`, 2);
    expect(entries.map((e) => [e.status, e.apiKeyId, e.resourceType, e.ip])).toEqual([
      [409, null, 'appointment', '198.51.100.9'],
      [200, null, 'appointment', '198.51.100.9'],
    ]);
  });

  it('closes cancel and reschedule at the change deadline, to the millisecond; staff are not held to it', async () => {
    const type = await createType({ cancellationWindowMinutes: 90 });
    const day = nextDay();
    const appointment = await booked(`${day}T12:00:00Z`, { appointmentTypeId: type.id });
    const path = pathOf(appointment.manageUrl);
    const deadline = Date.parse(`${day}T10:30:00Z`);

    setNow(deadline + 1);
    let view = await pub('GET', path);
    expect(view.body).toMatchObject({ changeDeadline: `${day}T10:30:00.000Z`, canCancel: false, canReschedule: false, canConfirm: true });
    const late = await pub<Problem & { changeDeadline: string }>('POST', `${path}/cancel`);
    expect([late.status, late.body.code, late.body.changeDeadline]).toEqual([409, 'change_window_closed', `${day}T10:30:00.000Z`]);
    expect((await pub<Problem>('POST', `${path}/reschedule`, { datetime: `${day}T15:00:00Z` })).body.code).toBe('change_window_closed');
    // Confirming is not a change of time: still allowed.
    expect((await pub('POST', `${path}/confirm`)).status).toBe(200);

    // Half a second before the deadline (the request's own milliseconds stay well inside it).
    setNow(deadline - 500);
    view = await pub('GET', path);
    expect(view.body).toMatchObject({ canCancel: true, canReschedule: true });
    const moved = await pub('POST', `${path}/reschedule`, { datetime: `${day}T15:00:00Z` });
    expect(moved.status).toBe(200);
    // The deadline follows the new time.
    expect(moved.body).toMatchObject({ datetime: `${day}T15:00:00.000Z`, changeDeadline: `${day}T13:30:00.000Z` });

    // Without a type: 24 hours. The keyed API is not held to the window.
    const bare = await booked(`${day}T13:00:00Z`);
    setNow(Date.parse(`${day}T13:00:00Z`) - 24 * 60 * MINUTE + 1);
    expect((await pub<Problem>('POST', `${pathOf(bare.manageUrl)}/cancel`)).body.code).toBe('change_window_closed');
    expect((await suite.api().patch(`${SCHEDULING}/appointments/${bare.id}`, { status: 'cancelled' })).status).toBe(200);
  });

  it('offers the same provider’s slots for the same type, and reschedules like a booking', async () => {
    const type = await createType({ durationMinutes: 60, slotIntervalMinutes: 60, bufferAfterMinutes: 30 });
    const day = nextDay();
    const appointment = await booked(`${day}T09:00:00Z`, { appointmentTypeId: type.id });
    const other = await booked(`${day}T13:00:00Z`, { provider: appointment.provider, appointmentTypeId: type.id });
    const path = pathOf(appointment.manageUrl);
    const slots = await pub<PublicManageAvailabilityDto>('GET', `${path}/availability?startDate=${day}&endDate=${day}`);
    expect(slots.status).toBe(200);
    // Its own time is free to it; the other's 13:00–14:00 and 30 minutes after it are not (nor 12:00, whose end + 30 reaches 13:00).
    expect(slots.body.slots.map((s) => s.start.slice(11, 16))).toEqual(['09:00', '10:00', '11:00', '15:00', '16:00']);
    expect(Object.keys(slots.body.slots[0]).sort()).toEqual(['end', 'start']);

    const refused = await pub<SlotUnavailable<PublicManageSlotDto>>('POST', `${path}/reschedule`, { datetime: `${day}T12:00:00Z` });
    expect([refused.status, refused.body.code]).toEqual([409, 'slot_unavailable']);
    expect(refused.body.alternatives.map((s) => s.start.slice(11, 16))).toEqual(['15:00', '16:00', '09:00']);
    // A keyless answer names no provider: its alternatives are times, as the availability's slots are.
    for (const alternative of refused.body.alternatives) expect(Object.keys(alternative).sort()).toEqual(['end', 'start']);
    expect(refused.text).not.toContain(appointment.providerId);
    const bad = await pub<Problem>('POST', `${path}/reschedule`, { datetime: 'soon', extra: 1 });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body).sort()).toEqual(['datetime', 'extra']);

    const moved = await pub('POST', `${path}/reschedule`, { datetime: `${day}T15:00:00Z` });
    expect(moved.status).toBe(200);
    const keyed = (await suite.api().get<AppointmentDto>(`${SCHEDULING}/appointments/${appointment.id}`)).body;
    const [event] = (await events('appointment.rescheduled')).filter((e) => e.data.appointment.id === appointment.id);
    expect(event.data).toEqual({
      appointment: keyed,
      previous: { datetime: `${day}T09:00:00.000Z`, end: `${day}T10:00:00.000Z` },
      source: 'patient_link',
    });
    expect(other.id).not.toBe(appointment.id);

    // A form post of the page's button: datetime in the query string, the page back.
    const form = await call(suite.app, 'POST', `${path}/reschedule?datetime=${encodeURIComponent(`${day}T10:00:00.000Z`)}`, {
      rawBody: '',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    });
    expect(form.status).toBe(200);
    expect(form.text).toContain('Your appointment is moved.');
    expect((await suite.api().get<AppointmentDto>(`${SCHEDULING}/appointments/${appointment.id}`)).body.datetime).toBe(
      `${day}T10:00:00.000Z`,
    );
  });

  it('answers 404 to a tampered, unknown or foreign token, and to an unsubscribe token', async () => {
    const day = nextDay();
    const appointment = await booked(`${day}T10:00:00Z`);
    const tokens = suite.app.get(ManageTokens);
    // The signed token of a link sent before manage ids, which is still accepted: altered, it is not.
    const token = tokens.token({ tenantId: suite.tenant.id, mode: 'test', appointmentId: appointment.id });
    const flipped = token.slice(0, 5) + (token[5] === 'A' ? 'B' : 'A') + token.slice(6);
    const other = await createTenant(suite.app);
    const forged = [
      flipped,
      `${token}x`,
      token.split('.')[0],
      'not-a-token',
      // Signed by this API but naming the appointment under another tenant, or the other mode.
      tokens.token({ tenantId: other.id, mode: 'test', appointmentId: appointment.id }),
      tokens.token({ tenantId: suite.tenant.id, mode: 'live', appointmentId: appointment.id }),
      // An unsubscribe link's token, for the same ids: another purpose, so another key.
      suite.app.get(UnsubscribeTokens).token({ tenantId: suite.tenant.id, mode: 'test', patientId: appointment.id }),
    ];
    for (const bad of forged) {
      for (const [method, route] of [
        ['GET', ''],
        ['POST', '/confirm'],
        ['POST', '/cancel'],
        ['GET', '/availability?startDate=2030-01-01&endDate=2030-01-02'],
      ] as const) {
        const res = await pub<Problem>(method, `/api/v1/public/appointments/${encodeURIComponent(bad)}${route}`);
        expect([bad, route, res.status, res.body.code]).toEqual([bad, route, 404, 'not_found']);
      }
    }
    // A manage link's token does not unsubscribe anyone either.
    for (const manage of [token, idOf(appointment.manageUrl)]) {
      expect((await pub('POST', `/api/v1/public/unsubscribe/${manage}`)).status).toBe(404);
    }
    // Another tenant's appointment, with its own valid link, answers its own appointment only.
    const theirs = await booked(`${day}T10:00:00Z`, {}, other.testKey);
    const res = await pub('GET', pathOf(theirs.manageUrl));
    expect(res.body.id).toBe(theirs.id);
    expect((await suite.api().get<AppointmentDto>(`${SCHEDULING}/appointments/${appointment.id}`)).body.status).toBe('scheduled');
  });

  it('is short: a 16-character id that GET, confirm, reschedule and cancel take, the same link across a reschedule', async () => {
    const day = nextDay();
    const appointment = await booked(`${day}T10:00:00Z`);
    const token = idOf(appointment.manageUrl);
    expect(token).toMatch(/^[0-9A-Za-z]{16}$/);
    // So that a reminder text with its link fits one SMS: PUBLIC_URL + "/api/v1/public/appointments/" + the id.
    expect(appointment.manageUrl.length).toBeLessThanOrEqual('http://127.0.0.1:3000'.length + 45);
    const stored = await dataSource(suite.app).query<{ manage_id: string }[]>(`SELECT manage_id FROM appointments WHERE id = $1`, [
      appointment.id,
    ]);
    expect(stored).toEqual([{ manage_id: token }]);

    const path = pathOf(appointment.manageUrl);
    expect((await pub('GET', path)).body).toMatchObject({ id: appointment.id, status: 'scheduled' });
    expect((await pub('POST', `${path}/confirm`)).body).toMatchObject({ id: appointment.id, status: 'confirmed' });
    const slots = await pub<PublicManageAvailabilityDto>('GET', `${path}/availability?startDate=${day}&endDate=${day}`);
    expect(slots.body.slots.map((s) => s.start)).toContain(`${day}T14:00:00.000Z`);
    const moved = await pub('POST', `${path}/reschedule`, { datetime: `${day}T14:00:00Z` });
    expect([moved.status, moved.body.datetime]).toEqual([200, `${day}T14:00:00.000Z`]);
    const keyed = (await suite.api().get<AppointmentDto>(`${SCHEDULING}/appointments/${appointment.id}`)).body;
    expect([keyed.datetime, keyed.manageUrl]).toEqual([`${day}T14:00:00.000Z`, appointment.manageUrl]);
    // The page opened by the short link posts its forms to it.
    const page = await pub('GET', path, undefined, { accept: 'text/html' });
    expect(page.text).toContain(`action="${path}/cancel"`);
    expect((await pub('POST', `${path}/cancel`)).body).toMatchObject({ id: appointment.id, status: 'cancelled' });
  });

  it("serves the appointment's iCalendar file without a key, naming the provider and the practice, not the patient", async () => {
    const appointment = await booked(`${nextDay()}T11:00:00Z`);
    await suite.api().post('/api/v1/settings/practice', { name: 'Harbour Clinic' });
    const res = await pub<string>('GET', `${pathOf(appointment.manageUrl)}/calendar.ics`);
    expect([res.status, res.headers['content-type']]).toEqual([200, 'text/calendar; charset=utf-8']);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="appointment-${appointment.id}.ics"`);
    const unfolded = res.text.replace(/\r\n /g, '');
    expect(unfolded).toContain(`UID:${appointment.id}`);
    expect(unfolded).toContain(`DTSTART:${appointment.datetime.replace(/[-:]/g, '').replace('.000', '')}`);
    expect(unfolded).toContain(`SUMMARY:Appointment with ${appointment.provider.name}`);
    expect(unfolded).toContain('X-WR-CALNAME:Harbour Clinic');
    expect(unfolded).not.toContain(appointment.patient.lastName);
    // The keyed route answers the same event.
    const keyed = await suite.api().get(`${SCHEDULING}/appointments/${appointment.id}.ics`);
    expect(keyed.text.replace(/\r\n /g, '')).toContain(`UID:${appointment.id}`);
  });

  it('answers 404 not_found to a manage id with one character changed, or unknown, on every route', async () => {
    const day = nextDay();
    const appointment = await booked(`${day}T10:00:00Z`);
    const token = idOf(appointment.manageUrl);
    expect(token).toMatch(/^[0-9A-Za-z]{16}$/);
    const swap = (c: string): string => (c === 'a' ? 'b' : c === 'A' ? 'a' : 'A');
    const altered = [
      swap(token[0]) + token.slice(1),
      token.slice(0, 7) + swap(token[7]) + token.slice(8),
      token.slice(0, 15) + swap(token[15]),
      token.toLowerCase() === token ? token.toUpperCase() : token.toLowerCase(),
      token.slice(0, 15),
      `${token}0`,
      '0'.repeat(16),
    ];
    for (const bad of altered) {
      for (const [method, route, body] of [
        ['GET', '', undefined],
        ['POST', '/confirm', undefined],
        ['POST', '/cancel', undefined],
        ['GET', '/availability?startDate=2030-01-01&endDate=2030-01-02', undefined],
        ['GET', '/calendar.ics', undefined],
        ['POST', '/reschedule', { datetime: `${day}T14:00:00Z` }],
      ] as const) {
        const res = await pub<Problem>(method, `/api/v1/public/appointments/${bad}${route}`, body);
        expect([bad, route, res.status, res.headers['content-type'], res.body.code]).toEqual([
          bad,
          route,
          404,
          expect.stringMatching(/^application\/problem\+json/),
          'not_found',
        ]);
      }
    }
    const after = (await suite.api().get<AppointmentDto>(`${SCHEDULING}/appointments/${appointment.id}`)).body;
    expect([after.status, after.datetime]).toEqual(['scheduled', `${day}T10:00:00.000Z`]);
  });

  it('still takes the signed token of a link sent before manage ids, on every route', async () => {
    const day = nextDay();
    const appointment = await booked(`${day}T10:00:00Z`);
    const signed = suite.app.get(ManageTokens).token({ tenantId: suite.tenant.id, mode: 'test', appointmentId: appointment.id });
    // Not the link the appointment answers now: that one is its manage id.
    expect(idOf(appointment.manageUrl)).not.toBe(signed);
    const path = `/api/v1/public/appointments/${signed}`;
    expect((await pub('GET', path)).body).toMatchObject({ id: appointment.id, status: 'scheduled' });
    const page = await pub('GET', path, undefined, { accept: 'text/html' });
    expect(page.text).toContain(`action="${path}/confirm"`);
    expect((await pub('POST', `${path}/confirm`)).body.status).toBe('confirmed');
    const slots = await pub<PublicManageAvailabilityDto>('GET', `${path}/availability?startDate=${day}&endDate=${day}`);
    expect(slots.status).toBe(200);
    expect((await pub('POST', `${path}/reschedule`, { datetime: `${day}T15:00:00Z` })).body.datetime).toBe(`${day}T15:00:00.000Z`);
    expect((await pub('POST', `${path}/cancel`)).body.status).toBe('cancelled');
  });

  it("takes tenant and mode from the appointment a manage id names, never from the request: another tenant's key reaches nothing else", async () => {
    const day = nextDay();
    const mine = await booked(`${day}T10:00:00Z`);
    const live = await booked(`${day}T11:00:00Z`, {}, suite.tenant.liveKey);
    const other = await createTenant(suite.app);
    const theirs = await booked(`${day}T10:00:00Z`, {}, other.testKey);
    for (const a of [mine, live, theirs]) expect(a.manageUrl).toMatch(/\/[0-9A-Za-z]{16}$/);
    expect(new Set([mine, live, theirs].map((a) => a.manageUrl)).size).toBe(3);

    // Each link answers its own appointment, whatever key comes along with the request.
    for (const [a, key] of [
      [mine, other.testKey],
      [live, suite.tenant.testKey],
      [theirs, suite.tenant.liveKey],
    ] as const) {
      const res = await call<PublicAppointmentDto>(suite.app, 'GET', pathOf(a.manageUrl), { key, remoteAddress: '198.51.100.9' });
      expect([res.status, res.body.id, res.body.providerName]).toEqual([200, a.id, a.provider.name]);
    }
    // A change through the live link lands in live mode of its tenant, and is seen there only.
    const confirmed = await call<PublicAppointmentDto>(suite.app, 'POST', `${pathOf(live.manageUrl)}/confirm`, { key: other.liveKey });
    expect(confirmed.body).toMatchObject({ id: live.id, status: 'confirmed' });
    expect((await suite.api(suite.tenant.liveKey).get<AppointmentDto>(`${SCHEDULING}/appointments/${live.id}`)).body.status).toBe(
      'confirmed',
    );
    expect((await suite.api(suite.tenant.testKey).get(`${SCHEDULING}/appointments/${live.id}`)).status).toBe(404);
    expect((await suite.api(other.liveKey).get(`${SCHEDULING}/appointments/${live.id}`)).status).toBe(404);
    const [entry] = await auditEntries(suite.app, suite.tenant.liveKey, `resourceId=${live.id}&action=appointment.public_confirm`, 1);
    expect([entry.status, entry.apiKeyId]).toEqual([200, null]);
    await auditEntries(suite.app, other.liveKey, `resourceId=${live.id}&action=appointment.public_confirm`, 0);
    // The test-mode and the other tenant's appointments are untouched.
    expect((await suite.api().get<AppointmentDto>(`${SCHEDULING}/appointments/${mine.id}`)).body.status).toBe('scheduled');
    expect((await suite.api(other.testKey).get<AppointmentDto>(`${SCHEDULING}/appointments/${theirs.id}`)).body.status).toBe('scheduled');
  });

  it('20 concurrent reschedules: one appointment wins a contested slot, moves into free ones never overlap', async () => {
    const day = nextDay();
    const a = await booked(`${day}T09:00:00Z`);
    const b = await booked(`${day}T09:30:00Z`, { provider: a.provider });
    const contested = `${day}T12:00:00Z`;
    const race = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        pub<Problem>('POST', `${pathOf((i % 2 ? a : b).manageUrl)}/reschedule`, { datetime: contested }),
      ),
    );
    const byAppointment = (x: typeof a) => race.filter((_, i) => (i % 2 ? a : b) === x).map((r) => r.status);
    const winner =
      (await suite.api().get<AppointmentDto>(`${SCHEDULING}/appointments/${a.id}`)).body.datetime === `${day}T12:00:00.000Z` ? a : b;
    const loser = winner === a ? b : a;
    expect(byAppointment(winner)).toEqual(Array(10).fill(200));
    expect(byAppointment(loser)).toEqual(Array(10).fill(409));
    expect(race.filter((r) => r.status === 409).every((r) => r.body.code === 'slot_unavailable')).toBe(true);

    const free = Array.from({ length: 20 }, (_, i) => new Date(Date.parse(`${day}T13:00:00Z`) + i * 10 * MINUTE).toISOString());
    const moves = await Promise.all(free.map((datetime) => pub<Problem>('POST', `${pathOf(loser.manageUrl)}/reschedule`, { datetime })));
    // Moves that would overlap the loser's own new time are fine (its own time is free to it); each answer is a 200 or a clean 409.
    expect(moves.every((r) => r.status === 200 || (r.status === 409 && r.body.code === 'slot_unavailable'))).toBe(true);
    expect(moves.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    const overlaps = await dataSource(suite.app).query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM appointments x JOIN appointments y ON x.provider_id = y.provider_id AND x.id < y.id
        WHERE x.provider_id = $1 AND x.status IN ('scheduled', 'confirmed') AND y.status IN ('scheduled', 'confirmed')
          AND tstzrange(x.starts_at, x.ends_at) && tstzrange(y.starts_at, y.ends_at)`,
      [a.provider.id],
    );
    expect(overlaps[0].n).toBe(0);
    const final = (await suite.api().get<AppointmentDto>(`${SCHEDULING}/appointments/${loser.id}`)).body.datetime;
    expect(free).toContain(final);
  });

  it('an SMS reply confirms through the service with source sms; a no-show carries source api', async () => {
    const day = nextDay();
    const appointment = await booked(`${day}T10:00:00Z`);
    const confirmed = await suite.app.get(AppointmentsService).confirm({ tenantId: suite.tenant.id, mode: 'test' }, appointment.id, 'sms');
    expect(confirmed.status).toBe('confirmed');
    const [event] = (await events('appointment.confirmed')).filter((e) => e.data.appointment.id === appointment.id);
    expect(event.data.source).toBe('sms');
    expect((await suite.api().patch(`${SCHEDULING}/appointments/${appointment.id}`, { status: 'no_show' })).status).toBe(200);
    const [noShow] = (await events('appointment.no_show')).filter((e) => e.data.appointment.id === appointment.id);
    expect(noShow.data).toMatchObject({ previous: { status: 'confirmed' }, source: 'api', appointment: { status: 'no_show' } });
  });

  describe('per client IP', () => {
    const limited = useApp({ ...NO_RATE_LIMITS, RATE_LIMIT_IP_PER_SECOND: '2', RATE_LIMIT_IP_PER_HOUR: '1000', WORKERS: 'off' });

    it('limits the public routes per client IP with 429 and Retry-After', async () => {
      const path = `/api/v1/public/appointments/${'x'.repeat(20)}.y`;
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await call(limited.app, 'GET', path, { remoteAddress: '203.0.113.5' }));
      expect(answers.map((r) => r.status)).toEqual([404, 404, 429]);
      expect(Number(answers[2].headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Another address has its own allowance.
      expect((await call(limited.app, 'GET', path, { remoteAddress: '203.0.113.6' })).status).toBe(404);
    });
  });
});
