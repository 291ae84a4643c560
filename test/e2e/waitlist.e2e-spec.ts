import type { Page } from 'playwright-core';
import { call, type Problem } from '../helpers/app';
import { auditEntries } from '../helpers/audit';
import { seriousViolations } from '../helpers/axe';
import { useBrowser } from '../helpers/browser';
import { dayByDay, utcDate } from '../helpers/dates';
import { eventually } from '../helpers/eventually';
import type { EventPageOf, AppointmentChanged } from '../helpers/events';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { freePort } from '../helpers/ports';
import { bookAppointment, createProvider, fieldsOf, SCHEDULING, weekdays } from '../helpers/scheduling';
import { useApp } from '../helpers/use-app';
import type { EmailMessageListDto } from '../../src/modules/email/dto/email-message.dto';
import type { PatientDto } from '../../src/modules/patients';
import type { AppointmentTypeDto } from '../../src/modules/scheduling/appointment-types/dto/appointment-type.dto';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { AvailabilityDto } from '../../src/modules/scheduling/availability/dto/availability.dto';
import type { ProviderDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type {
  AcceptedWaitlistOfferDto,
  PublicWaitlistOfferDto,
  WaitlistEntryDto,
  WaitlistEntryListDto,
} from '../../src/modules/scheduling/waitlist/dto/waitlist.dto';
import type { TestClockAdvancedDto } from '../../src/modules/test-clocks/dto/test-clock.dto';

const WAITLIST = `${SCHEDULING}/waitlist`;
const OFFERS = '/api/v1/public/waitlist-offers';
const CLOCK = '/api/v1/test-helpers/clock';
const LINK = /\/api\/v1\/public\/waitlist-offers\/([0-9A-Za-z]{16})/;

/**
 * The waitlist through the real app and its workers: freed time goes to the oldest fitting entry as a held
 * offer with a message, a declined or lapsed offer goes to the next one, and an accepted offer books the slot
 * or moves the patient's appointment earlier.
 */
describe('Waitlist', () => {
  const chromium = useBrowser();
  let port: number;
  beforeAll(async () => {
    port = await freePort();
  });
  const suite = useApp(() => ({
    ...NO_RATE_LIMITS,
    RATE_LIMIT_IP_PER_SECOND: '0',
    RATE_LIMIT_IP_PER_HOUR: '0',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
  }));
  beforeAll(async () => {
    await suite.app.listen({ port, host: '127.0.0.1' });
  });
  const nextDay = dayByDay({ weekdaysOnly: true });
  const api = () => suite.api();
  const anonymous = <T>(method: 'GET' | 'POST', url: string, body?: unknown) =>
    call<T>(suite.app, method, url, { body, remoteAddress: '198.51.100.7' });

  /** A provider of its own (so that no other test's entries fit its time) and a 30-minute type of it. */
  const practice = async (name: string): Promise<{ provider: ProviderDto; type: AppointmentTypeDto }> => {
    const provider = await createProvider(suite.app, suite.tenant.testKey, {
      name,
      timezone: 'UTC',
      workingHours: weekdays('09:00', '17:00'),
    });
    const type = await api().post<AppointmentTypeDto>(`${SCHEDULING}/appointment-types`, {
      name: `Check-up with ${name}`,
      durationMinutes: 30,
      providerIds: [provider.id],
      waitlistOfferMinutes: 30,
    });
    expect([type.status, type.text]).toEqual([201, expect.any(String)]);
    expect(type.body.waitlistOfferMinutes).toBe(30);
    return { provider, type: type.body };
  };
  const patient = (firstName: string): Promise<PatientDto> =>
    createPatient(suite.app, suite.tenant.testKey, { firstName, lastName: 'Waiting', email: `${firstName.toLowerCase()}@example.com` });
  const join = async (body: Record<string, unknown>): Promise<WaitlistEntryDto> => {
    const res = await api().post<WaitlistEntryDto>(WAITLIST, body);
    expect([res.status, res.text]).toEqual([201, expect.any(String)]);
    return res.body;
  };
  const entry = async (id: string) => (await api().get<WaitlistEntryDto>(`${WAITLIST}/${id}`)).body;
  const offered = (id: string) =>
    eventually(async () => {
      const e = await entry(id);
      expect(e.status).toBe('offered');
      return e;
    });
  /** The token of the patient's waitlist_offer email (captured in test mode), the nth one to them. */
  const tokenOf = (patientId: string, count = 1) =>
    eventually(async () => {
      const res = await api().get<EmailMessageListDto>(`/api/v1/emails/messages?patientId=${patientId}&limit=100`);
      const offers = res.body.messages.filter((m) => m.kind === 'waitlist_offer');
      expect(offers).toHaveLength(count);
      const [, token] = LINK.exec(offers[0].textBody ?? '')!;
      expect(offers[0].textBody).toContain(`http://127.0.0.1:${port}${OFFERS}/${token}`);
      return token;
    });
  const slotsOf = async (providerId: string, day: string) =>
    (
      await api().get<AvailabilityDto>(`${SCHEDULING}/availability?providerId=${providerId}&startDate=${day}&endDate=${day}`)
    ).body.slots.map((s) => s.start);
  const book = (patientId: string, provider: ProviderDto, type: AppointmentTypeDto, datetime: string): Promise<AppointmentDto> =>
    bookAppointment(suite.app, suite.tenant.testKey, { patientId, providerId: provider.id, datetime, appointmentTypeId: type.id });
  const cancel = async (appointmentId: string) =>
    expect((await api().patch(`${SCHEDULING}/appointments/${appointmentId}`, { status: 'cancelled' })).status).toBe(200);

  it('refuses bad entries (400 naming fields) and a second waiting entry (409 waitlist_entry_exists); DELETE cancels', async () => {
    const { provider, type } = await practice('Dr. Valid');
    const pat = await patient('Vera');
    const bad = await api().post<Problem>(WAITLIST, {
      patientId: '00000000-0000-4000-8000-000000000000',
      appointmentTypeId: type.id,
      // February never has a 30th: a date-shaped value that is no date, in next year's February.
      earliestDate: `${Number(utcDate(0).slice(0, 4)) + 1}-02-30`,
      windows: [{ weekday: 8, start: '10:00', end: '09:00' }],
      extra: true,
    });
    expect([bad.status, bad.body.code]).toEqual([400, 'validation_failed']);
    expect(fieldsOf(bad.body)).toEqual(expect.arrayContaining(['earliestDate', 'windows.0.weekday', 'extra']));
    const unknown = await api().post<Problem>(WAITLIST, {
      patientId: '00000000-0000-4000-8000-000000000000',
      appointmentTypeId: type.id,
      windows: [{ weekday: 1, start: '10:00', end: '09:00' }],
      earliestDate: utcDate(31),
      latestDate: utcDate(30),
    });
    expect([unknown.status, fieldsOf(unknown.body).sort()]).toEqual([400, ['latestDate', 'patientId', 'windows.0.end']]);

    const created = await join({ patientId: pat.id, appointmentTypeId: type.id });
    expect(created).toEqual({
      id: expect.any(String),
      patientId: pat.id,
      appointmentTypeId: type.id,
      providerIds: [provider.id],
      earliestDate: null,
      latestDate: null,
      windows: [],
      appointmentId: null,
      status: 'waiting',
      offers: [],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const again = await api().post<Problem & { entryId: string }>(WAITLIST, { patientId: pat.id, appointmentTypeId: type.id });
    expect([again.status, again.body.code, again.body.entryId]).toEqual([409, 'waitlist_entry_exists', created.id]);

    const listed = await api().get<WaitlistEntryListDto>(`${WAITLIST}?patientId=${pat.id}&status=waiting`);
    expect(listed.body.entries.map((e) => e.id)).toEqual([created.id]);
    expect((await api().get<Problem>(`${WAITLIST}?status=nope`)).status).toBe(400);

    expect((await api().delete(`${WAITLIST}/${created.id}`)).status).toBe(204);
    expect((await entry(created.id)).status).toBe('cancelled');
    expect((await api().get(`${WAITLIST}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    await join({ patientId: pat.id, appointmentTypeId: type.id });
  });

  it('offers freed time to the oldest entry; a declined offer goes to the next; a lapsed one frees the slot', async () => {
    const { provider, type } = await practice('Dr. Free');
    const [first, second, booked] = await Promise.all([patient('Anna'), patient('Bert'), patient('Carl')]);
    const day = nextDay();
    const datetime = `${day}T10:00:00.000Z`;
    const appointment = await book(booked.id, provider, type, datetime);
    const older = await join({ patientId: first.id, appointmentTypeId: type.id });
    const newer = await join({ patientId: second.id, appointmentTypeId: type.id, providerIds: [provider.id] });

    await cancel(appointment.id);
    const withOffer = await offered(older.id);
    expect(withOffer.offers).toEqual([
      { id: expect.any(String), datetime, providerId: provider.id, expiresAt: expect.any(String), status: 'pending' },
    ]);
    expect((await entry(newer.id)).status).toBe('waiting');
    const token = await tokenOf(first.id);

    // Held for the offer: gone from availability, and a booking of it is refused.
    expect(await slotsOf(provider.id, day)).not.toContain(datetime);
    const taken = await api().post<Problem>(`${SCHEDULING}/book`, {
      patientId: booked.id,
      providerId: provider.id,
      datetime,
      duration: 30,
    });
    expect([taken.status, taken.body.code]).toEqual([409, 'slot_unavailable']);

    const view = await anonymous<PublicWaitlistOfferDto>('GET', `${OFFERS}/${token}`);
    expect([view.status, view.body]).toEqual([
      200,
      expect.objectContaining({ status: 'pending', datetime, providerName: 'Dr. Free', timezone: 'UTC', appointmentTypeName: type.name }),
    ]);
    expect((await anonymous('GET', `${OFFERS}/${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`)).status).toBe(404);

    const declined = await anonymous<PublicWaitlistOfferDto>('POST', `${OFFERS}/${token}/decline`);
    expect([declined.status, declined.body.status]).toEqual([200, 'declined']);
    expect((await entry(older.id)).status).toBe('waiting');

    const next = await offered(newer.id);
    expect(next.offers).toEqual([expect.objectContaining({ datetime, status: 'pending' })]);
    const nextToken = await tokenOf(second.id);
    try {
      const advanced = await api().post<TestClockAdvancedDto>(`${CLOCK}/advance`, {
        to: new Date(Date.parse(next.offers[0].expiresAt) + 1_000).toISOString(),
      });
      expect([advanced.status, advanced.text]).toEqual([200, expect.any(String)]);
      expect(advanced.body.ran.offersExpired).toBeGreaterThanOrEqual(1);
      const late = await anonymous<Problem>('POST', `${OFFERS}/${nextToken}/accept`);
      expect([late.status, late.body.code]).toEqual([410, 'offer_expired']);
      expect((await anonymous<Problem>('GET', `${OFFERS}/${nextToken}`)).status).toBe(410);
      expect((await entry(newer.id)).status).toBe('waiting');
      // Both passed on it: nobody else is offered it, and it is free again.
      await eventually(async () => expect(await slotsOf(provider.id, day)).toContain(datetime));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await entry(older.id)).status).toBe('waiting');
      expect((await entry(newer.id)).offers.map((o) => o.status)).toEqual(['expired']);
    } finally {
      expect((await api().post(`${CLOCK}/reset`)).status).toBe(200);
    }

    const events = await api().get<EventPageOf<{ id: string }>>('/api/v1/events?type=waitlist.offered&limit=100');
    expect(events.body.events.map((e) => e.data.id)).toEqual(expect.arrayContaining([withOffer.offers[0].id, next.offers[0].id]));
  });

  it("moves an entry's appointment earlier when it accepts (appointment.rescheduled, source patient_link)", async () => {
    const { provider, type } = await practice('Dr. Early');
    const [mover, other] = await Promise.all([patient('Mia'), patient('Otto')]);
    const day = nextDay();
    const later = await book(mover.id, provider, type, `${day}T15:00:00.000Z`);
    const freed = await book(other.id, provider, type, `${day}T10:00:00.000Z`);
    const waiting = await join({ patientId: mover.id, appointmentTypeId: type.id, appointmentId: later.id });
    await cancel(freed.id);
    await offered(waiting.id);
    const token = await tokenOf(mover.id);

    const accepted = await anonymous<AcceptedWaitlistOfferDto>('POST', `${OFFERS}/${token}/accept`);
    expect([accepted.status, accepted.text]).toEqual([201, expect.any(String)]);
    expect(accepted.body).toMatchObject({
      id: later.id,
      datetime: `${day}T10:00:00.000Z`,
      status: 'scheduled',
      manageUrl: later.manageUrl,
    });
    const moved = await api().get<AppointmentDto>(`${SCHEDULING}/appointments/${later.id}`);
    expect(moved.body.datetime).toBe(`${day}T10:00:00.000Z`);
    const done = await entry(waiting.id);
    expect([done.status, done.offers.map((o) => o.status)]).toEqual(['booked', ['accepted']]);
    const again = await anonymous<AcceptedWaitlistOfferDto>('POST', `${OFFERS}/${token}/accept`);
    expect([again.status, again.body.id]).toEqual([201, later.id]);
    // Keyless, and audited in the offer's tenant and mode, naming the offer.
    const audited = await auditEntries(suite.app, suite.tenant.testKey, `resourceId=${done.offers[0].id}&action=waitlist.public_accept`, 2);
    expect(audited.map((e) => [e.status, e.apiKeyId])).toEqual([
      [201, null],
      [201, null],
    ]);

    const rescheduled = await api().get<EventPageOf<AppointmentChanged>>('/api/v1/events?type=appointment.rescheduled&limit=100');
    const mine = rescheduled.body.events.filter((e) => e.data.appointment.id === later.id);
    expect(mine.map((e) => [e.data.source, e.data.previous.datetime])).toEqual([['patient_link', `${day}T15:00:00.000Z`]]);
    const acceptedEvents = await api().get<EventPageOf<{ entryId: string; appointmentId: string; source: string }>>(
      '/api/v1/events?type=waitlist.accepted',
    );
    expect(acceptedEvents.body.events.map((e) => [e.data.entryId, e.data.appointmentId, e.data.source])).toContainEqual([
      waiting.id,
      later.id,
      'patient_link',
    ]);
  });

  it("offers time freed by removing time off, within the entry's dates and windows only", async () => {
    const { provider, type } = await practice('Dr. Back');
    const [picky, open] = await Promise.all([patient('Petra'), patient('Olga')]);
    const day = nextDay();
    const off = await api().post<{ id: string }>(`${SCHEDULING}/providers/${provider.id}/time-off`, {
      start: `${day}T09:00:00Z`,
      end: `${day}T17:00:00Z`,
    });
    expect(off.status).toBe(201);
    const weekday = new Date(`${day}T00:00:00Z`).getUTCDay() || 7;
    // The older entry fits only the afternoon of that day; the newer any time.
    const afternoons = await join({
      patientId: picky.id,
      appointmentTypeId: type.id,
      earliestDate: day,
      latestDate: day,
      windows: [{ weekday, start: '13:00', end: '17:00' }],
    });
    const anyTime = await join({ patientId: open.id, appointmentTypeId: type.id });
    expect((await api().delete(`${SCHEDULING}/providers/${provider.id}/time-off/${off.body.id}`)).status).toBe(204);
    expect((await offered(afternoons.id)).offers.map((o) => o.datetime)).toEqual([`${day}T13:00:00.000Z`]);
    expect((await entry(anyTime.id)).status).toBe('waiting');
  });

  it('cancelling an entry withdraws its offer and releases the hold for the next entry', async () => {
    const { provider, type } = await practice('Dr. Withdrawn');
    const [first, second, booked] = await Promise.all([patient('Wendy'), patient('Xavier'), patient('Yara')]);
    const day = nextDay();
    const appointment = await book(booked.id, provider, type, `${day}T11:00:00.000Z`);
    const older = await join({ patientId: first.id, appointmentTypeId: type.id });
    const newer = await join({ patientId: second.id, appointmentTypeId: type.id });
    await cancel(appointment.id);
    await offered(older.id);
    const token = await tokenOf(first.id);
    expect((await api().delete(`${WAITLIST}/${older.id}`)).status).toBe(204);
    const withdrawn = await entry(older.id);
    expect([withdrawn.status, withdrawn.offers.map((o) => o.status)]).toEqual(['cancelled', ['expired']]);
    expect((await anonymous<Problem>('POST', `${OFFERS}/${token}/accept`)).body.code).toBe('offer_expired');
    expect((await offered(newer.id)).offers[0].datetime).toBe(`${day}T11:00:00.000Z`);
  });

  it('shows the offer to a browser as a page with Accept and Decline that passes axe-core', async () => {
    const { provider, type } = await practice('Dr. Page');
    const [waiter, booked] = await Promise.all([patient('Paula'), patient('Quinn')]);
    const day = nextDay();
    const appointment = await book(booked.id, provider, type, `${day}T14:00:00.000Z`);
    const waiting = await join({ patientId: waiter.id, appointmentTypeId: type.id });
    await cancel(appointment.id);
    await offered(waiting.id);
    const token = await tokenOf(waiter.id);

    const context = await chromium.browser.newContext({ viewport: { width: 360, height: 740 }, bypassCSP: true });
    try {
      const page: Page = await context.newPage();
      const opened = await page.goto(`http://127.0.0.1:${port}${OFFERS}/${token}`);
      expect(opened?.status()).toBe(200);
      expect(await page.locator('h1').textContent()).toContain('An earlier appointment');
      expect(await page.locator('button', { hasText: 'Accept' }).count()).toBe(1);
      expect(await page.locator('button', { hasText: 'Decline' }).count()).toBe(1);
      expect(await seriousViolations(page)).toEqual([]);
      await page.locator('button', { hasText: 'Accept' }).click();
      await page.waitForSelector('a[data-manage-url]');
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
    expect((await entry(waiting.id)).status).toBe('booked');
  });
});
