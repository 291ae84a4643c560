import { Injectable } from '@nestjs/common';
import { DateTime } from 'luxon';
import { isUuid } from '../../common/ids';
import { apiPath } from '../../common/http/responses/response-headers';
import { BusinessClock } from '../../common/time/business-clock';
import { problemOf, ValidationFailedException } from '../../common/http/errors/problem';
import type { ApiException } from '../../common/http/errors/problem';
import { retryOnDeadlock } from '../../database/database-errors';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { PatientsService } from '../patients';
import {
  AppointmentsService,
  AppointmentTypesService,
  AvailabilityService,
  type BookingPolicy,
  type BookingRequest,
  HOLD_TTL,
  HoldsService,
  durationPolicy,
  offering,
  parseRange,
  publicSlots,
  ProviderEntity,
  ProvidersService,
  typePolicy,
} from '../scheduling';
import { SmsConsent } from '../sms';
import {
  PublicAvailabilityDto,
  PublicAvailabilityQueryDto,
  PublicBookingDto,
  PublicBookingResultDto,
  PublicHoldDto,
  PublicHoldResultDto,
  PublicSchedulerDto,
} from './dto/public-scheduler.dto';
import { DAYS_SHOWN, PageHeading, PageProvider, TimesView } from './booking-page.view';
import { SchedulerEntity } from './entities/scheduler.entity';
import { SchedulerNotFoundException } from './booking-pages.exceptions';
import { BookingPagesRepository } from './booking-pages.repository';

const ALTERNATIVES = 3;
const MINUTE = 60_000;

/**
 * The public booking page: what anyone may do with a scheduler's id and no key. Everything runs in the
 * scheduler's tenant and mode, taken from its row; answers carry no ids but the scheduler's and the new
 * appointment's, and nothing about any patient.
 */
@Injectable()
export class PublicBookingService {
  constructor(
    private readonly schedulers: BookingPagesRepository,
    private readonly providers: ProvidersService,
    private readonly types: AppointmentTypesService,
    private readonly availability: AvailabilityService,
    private readonly appointments: AppointmentsService,
    private readonly holds: HoldsService,
    private readonly patients: PatientsService,
    private readonly sms: SmsConsent,
    private readonly transactions: Transactions,
    private readonly clock: BusinessClock,
  ) {}

  /** GET /public/schedulers/{id}: the page, counting the view in the same statement that reads it. */
  async view(id: string): Promise<PublicSchedulerDto> {
    const scheduler = await this.countView(id);
    const page = await this.pageOf(scheduler);
    return {
      id: scheduler.id,
      name: scheduler.name,
      slug: scheduler.slug,
      description: scheduler.description,
      duration: page.policy.duration,
      type: page.typeName,
      requirePhone: scheduler.requirePhone,
      providers: page.providers.map((p) => ({ name: p.name, timezone: p.timezone })),
    };
  }

  /** The active scheduler behind a public id, one more view counted; 404 for an unknown or inactive one. */
  async countView(id: string): Promise<SchedulerEntity> {
    const scheduler = await this.schedulers.countPublicView(id);
    if (!scheduler) throw new SchedulerNotFoundException();
    return scheduler;
  }

  /** The active scheduler behind a public id; 404 for an unknown or inactive one. */
  async require(id: string): Promise<SchedulerEntity> {
    const scheduler = await this.schedulers.findPublic(id);
    if (!scheduler) throw new SchedulerNotFoundException();
    return scheduler;
  }

  /** Free slots of the page across its providers, under its type's policies; a time several providers have free is listed once. */
  async slots(scheduler: SchedulerEntity, query: PublicAvailabilityQueryDto): Promise<PublicAvailabilityDto> {
    const range = parseRange(query.startDate, query.endDate);
    const page = await this.pageOf(scheduler);
    return { slots: publicSlots(await this.availability.slotsFor(scheduler, page.providers, range, page.policy)) };
  }

  /**
   * Books `datetime` with the first of the page's providers that availability shows free then (under the
   * page's policies), or the time of a hold the page took (`holdId`, with its provider), in one transaction:
   * Scheduling claims the slot (consuming the hold first), the patient is found by email in the scheduler's
   * tenant and mode or created as a lead (so a refused booking leaves no lead behind), Scheduling records the
   * appointment and queues the patient's notice, and the page counts the booking. A race for the slot is settled as for POST
   * /scheduling/book: the provider's lock and the exclusion constraints let one booking through, and the
   * others get the page's alternatives, computed once.
   */
  async book(scheduler: SchedulerEntity, dto: PublicBookingDto): Promise<PublicBookingResultDto> {
    const scope: TenantScope = { tenantId: scheduler.tenantId, mode: scheduler.mode };
    if (scheduler.requirePhone && !dto.phone)
      throw new ValidationFailedException([{ field: 'phone', message: 'is required by this booking page' }]);
    // The DTO refused a phone of a kind no practice texts; here, one outside this practice's countries.
    const refused = dto.phone ? await this.sms.untextable(scope, dto.phone) : null;
    if (refused) throw new ValidationFailedException([{ field: 'phone', message: refused }]);
    const page = await this.pageOf(scheduler);
    const asked = dto.datetime === undefined ? undefined : Date.parse(dto.datetime);
    // Without a hold the DTO required datetime.
    const free = dto.holdId === undefined ? await this.firstFree(scope, page, asked!) : undefined;
    let slot = { provider: free, start: asked };
    const lead = { firstName: dto.firstName, lastName: dto.lastName, email: dto.email, phone: dto.phone };
    try {
      const appointment = await retryOnDeadlock(() =>
        this.transactions.run(async (tx) => {
          // A booking page always tells the patient (a notice by the type's channels).
          let request: BookingRequest = { start: asked!, policy: page.policy, type: page.typeName, notes: null, notifyPatient: true };
          let provider = free!;
          if (dto.holdId !== undefined) {
            const held = await this.holds.consume(scope, dto.holdId, { notes: null, schedulerId: scheduler.id }, tx);
            if (asked !== undefined && asked !== held.request.start)
              throw new ValidationFailedException([{ field: 'datetime', message: "must be the hold's datetime or omitted" }]);
            ({ provider } = held);
            request = { ...held.request, type: page.typeName, notifyPatient: true };
            slot = { provider, start: request.start };
          }
          await this.appointments.claimSlot(scope, provider, request, tx);
          const patient = await this.patients.findOrCreateLead(scope, lead, tx);
          const booked = await this.appointments.recordBooking(scope, provider, request, patient, tx);
          if (dto.holdId !== undefined) await this.holds.booked(scope, dto.holdId, booked.id, tx);
          // Deactivated since it was read: the booking rolls back with the count.
          if (!(await this.schedulers.countBooking(scope, scheduler.id, tx))) throw new SchedulerNotFoundException();
          return { appointment: booked, provider };
        }),
      );
      return {
        id: appointment.appointment.id,
        schedulerId: scheduler.id,
        datetime: appointment.appointment.datetime,
        end: appointment.appointment.end,
        duration: appointment.appointment.duration,
        status: 'scheduled',
        type: appointment.appointment.type,
        provider: { name: appointment.provider.name, timezone: appointment.provider.timezone },
        manageUrl: appointment.appointment.manageUrl,
      };
    } catch (err) {
      const refused = this.appointments.refusedBecause(err);
      if (refused && slot.start !== undefined) throw await this.unavailable(scope, page, slot.start, refused);
      throw err;
    }
  }

  /**
   * POST /public/schedulers/{id}/holds: holds `datetime` with the page's provider `providerId`, or the first
   * of its providers free then, for the page's duration and type, for the default time. Refused as a
   * booking of the page would be (409 slot_unavailable with the page's next free times).
   */
  async hold(scheduler: SchedulerEntity, dto: PublicHoldDto): Promise<PublicHoldResultDto> {
    const scope: TenantScope = { tenantId: scheduler.tenantId, mode: scheduler.mode };
    const page = await this.pageOf(scheduler);
    const start = Date.parse(dto.datetime);
    if (dto.providerId !== undefined) {
      const chosen = page.providers.filter((p) => p.id === dto.providerId!.toLowerCase());
      if (!chosen.length) throw new ValidationFailedException([{ field: 'providerId', message: 'names no provider of this booking page' }]);
      page.providers = chosen;
    }
    const provider = await this.firstFree(scope, page, start);
    try {
      const hold = await this.holds.place(scope, {
        provider,
        start,
        policy: page.policy,
        ttlSeconds: HOLD_TTL.default,
        schedulerId: scheduler.id,
      });
      return { holdId: hold.id, expiresAt: hold.expiresAt };
    } catch (err) {
      const refused = this.appointments.refusedBecause(err);
      if (refused) throw await this.unavailable(scope, page, start, refused);
      throw err;
    }
  }

  /** The first of the page's providers that availability shows free at `start`; 409 slot_unavailable when none is. */
  private async firstFree(scope: TenantScope, page: BookingPage, start: number): Promise<ProviderEntity> {
    const at = { start: { instant: start }, end: { instant: start + page.policy.duration * MINUTE } };
    const free = new Set(
      (await this.availability.slotsFor(scope, page.providers, at, page.policy))
        .filter((s) => Date.parse(s.start) === start)
        .map((s) => s.providerId),
    );
    const provider = page.providers.find((p) => free.has(p.id));
    if (!provider) throw await this.unavailable(scope, page, start, 'No provider of this page is free at the requested time');
    return provider;
  }

  /**
   * The booking page's times as a browser shows them: the chosen provider's (an unknown choice, or none, is
   * the page's first) free starts for a week from `from` (a date in the provider's timezone; before today,
   * or none, is today by the page's clock).
   */
  async pageTimes(scheduler: SchedulerEntity, providerId?: string, from?: string): Promise<Omit<TimesView, 'notice'>> {
    const page = await this.pageOf(scheduler);
    const providers: PageProvider[] = page.providers.map((p) => ({ id: p.id, name: p.name, timezone: p.timezone }));
    const provider = page.providers.find((p) => p.id === providerId) ?? page.providers[0];
    if (!provider)
      return { heading: this.heading(scheduler, page), providers, provider: NO_PROVIDER, slots: [], from: '', earlier: null, later: '' };
    const today = DateTime.fromMillis(await this.clock.nowMs(scheduler), { zone: provider.timezone }).startOf('day');
    const asked = from ? DateTime.fromISO(from, { zone: provider.timezone }) : today;
    const first = asked.isValid && asked > today ? asked.startOf('day') : today;
    const last = first.plus({ days: DAYS_SHOWN - 1 });
    const range = parseRange(first.toISODate()!, last.toISODate()!);
    const slots = await this.availability.slotsFor(scheduler, [provider], range, page.policy);
    return {
      heading: this.heading(scheduler, page),
      providers,
      provider: { id: provider.id, name: provider.name, timezone: provider.timezone },
      slots: slots.map((s) => s.start),
      from: first.toISODate()!,
      earlier: first > today ? DateTime.max(today, first.minus({ days: DAYS_SHOWN })).toISODate() : null,
      later: first.plus({ days: DAYS_SHOWN }).toISODate()!,
    };
  }

  /** The page's heading and one of its providers (null when it is not the page's), for a step of the page. */
  async pageStep(scheduler: SchedulerEntity, providerId: string): Promise<{ heading: PageHeading; provider: PageProvider } | null> {
    const page = await this.pageOf(scheduler);
    const provider = page.providers.find((p) => p.id === providerId);
    return provider
      ? { heading: this.heading(scheduler, page), provider: { id: provider.id, name: provider.name, timezone: provider.timezone } }
      : null;
  }

  /** A hold of this page's tenant and mode (its start, provider, end of hold and whether it still holds its time), else null. */
  async heldTime(
    scheduler: SchedulerEntity,
    holdId: string,
  ): Promise<{ start: string; providerId: string; expiresAt: string; active: boolean } | null> {
    if (!isUuid(holdId)) return null;
    const hold = await this.holds.get(scheduler, holdId).catch(() => null);
    return hold && { start: hold.datetime, providerId: hold.providerId, expiresAt: hold.expiresAt, active: hold.status === 'active' };
  }

  private heading(scheduler: SchedulerEntity, page: BookingPage): PageHeading {
    return this.pageHeading(scheduler, page.typeName, page.policy.duration);
  }

  /** The heading every step of the page shows. */
  pageHeading(scheduler: SchedulerEntity, type: string | null, duration: number): PageHeading {
    return {
      path: apiPath('public', 'schedulers', scheduler.id),
      name: scheduler.name,
      description: scheduler.description,
      duration,
      type,
    };
  }

  /** What the page books: its policy (its type's, or its bare duration's), the type's name and its active providers that offer it. */
  private async pageOf(scheduler: SchedulerEntity): Promise<BookingPage> {
    const active = (await this.providers.findMany(scheduler, scheduler.providerIds)).filter((p) => p.isActive);
    if (!scheduler.appointmentTypeId) {
      return { policy: durationPolicy(scheduler.duration!), typeName: scheduler.type, providers: active };
    }
    const type = await this.types.find(scheduler, scheduler.appointmentTypeId);
    // A page whose type was deactivated books nothing: as an inactive page.
    if (!type?.isActive) throw new SchedulerNotFoundException();
    return { policy: typePolicy(type), typeName: type.name, providers: offering(type, active) };
  }

  /** 409 slot_unavailable with the page's next free times under its policies, without naming providers. */
  private async unavailable(scope: TenantScope, page: BookingPage, start: number, detail: string | undefined): Promise<ApiException> {
    const slots = await this.availability.alternatives(scope, page.providers, start, page.policy);
    return problemOf('slot_unavailable', detail, { alternatives: publicSlots(slots).slice(0, ALTERNATIVES) });
  }
}

/** A page whose providers all left it: it shows no times. */
const NO_PROVIDER: PageProvider = { id: '', name: 'nobody at the moment', timezone: 'UTC' };

interface BookingPage {
  policy: BookingPolicy;
  typeName: string | null;
  providers: ProviderEntity[];
}
