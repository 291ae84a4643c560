import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../../common/auth/auth.types';
import { ValidationFailedException } from '../../../common/http/errors/problem';
import { BusinessClock } from '../../../common/time/business-clock';
import { TenantScope } from '../../../database/tenant-owned.entity';
import {
  blockedSpans,
  BookingPolicy,
  durationPolicy,
  HeldAppointment,
  PolicyRefusal,
  policyRefusal,
  startBounds,
  typePolicy,
  underDailyCap,
} from '../appointments/appointment-policies';
import { AppointmentTypesService } from '../appointment-types/appointment-types.service';
import { AppointmentsRepository, HeldTime } from '../appointments/appointments.repository';
import { boundInstant, DateRange, parseRange } from './date-range';
import { AvailabilityDto, AvailabilityQueryDto, SlotDto } from './dto/availability.dto';
import { AppointmentTypeEntity } from '../appointment-types/entities/appointment-type.entity';
import { ProviderEntity } from '../providers/entities/provider.entity';
import { ProvidersRepository } from '../providers/providers.repository';
import { ProvidersService } from '../providers/providers.service';
import { freeSlots, Interval, overlapsAny, withinWorkingHours } from './slots';
import { TimeOffRepository } from '../providers/time-off.repository';

export const DEFAULT_DURATION = 30;
const MINUTE = 60_000;
const DAY = 86_400_000;
/** How far ahead alternatives to a refused booking are looked for. */
const ALTERNATIVES_HORIZON_DAYS = 93;
const ALTERNATIVES = 3;
/**
 * How far outside a searched range appointments are read: their buffers (at most 240 minutes each side)
 * and the daily cap (a whole local day) reach beyond it.
 */
const HELD_MARGIN = DAY + 16 * 60 * MINUTE;

/** Why a span cannot be booked; an overlap with another appointment is also settled by the database. */
export type Unbookable = 'in_the_past' | 'outside_working_hours' | 'off_grid' | 'time_off' | 'provider_inactive' | PolicyRefusal;

/** A provider and the instants between which its slots are searched. */
interface Span {
  provider: ProviderEntity;
  from: number;
  to: number;
}

@Injectable()
export class AvailabilityService {
  constructor(
    private readonly providers: ProvidersRepository,
    private readonly providersService: ProvidersService,
    private readonly types: AppointmentTypesService,
    private readonly timeOff: TimeOffRepository,
    private readonly appointments: AppointmentsRepository,
    private readonly clock: BusinessClock,
  ) {}

  /**
   * GET /scheduling/availability: one provider's free slots, or every active provider's; with an
   * appointment type, its duration, grid, policies and providers.
   */
  async availability(auth: AuthContext, query: AvailabilityQueryDto): Promise<AvailabilityDto> {
    const range = parseRange(query.startDate, query.endDate);
    let policy = durationPolicy(query.duration ?? DEFAULT_DURATION);
    let type: AppointmentTypeEntity | undefined;
    if (query.appointmentTypeId) {
      type = await this.types.named(auth, query.appointmentTypeId);
      checkDuration(type, query.duration, 'duration');
      policy = typePolicy(type);
    }
    const providers = query.providerId ? [await this.providersService.require(auth, query.providerId)] : await this.providers.active(auth);
    return { slots: await this.slotsFor(auth, offering(type, providers), range, policy) };
  }

  /**
   * The free slots of these providers (inactive ones have none) in a checked range under a policy, each
   * naming its provider, ascending by start then provider. A date bound is read in each provider's timezone.
   * `exceptId`: an appointment being moved, whose own time counts as free.
   */
  async slotsFor(
    scope: TenantScope,
    providers: ProviderEntity[],
    range: DateRange,
    policy: BookingPolicy,
    exceptId?: string,
  ): Promise<SlotDto[]> {
    const spans = providers
      .filter((p) => p.isActive)
      .map((provider) => ({
        provider,
        from: boundInstant(range.start, provider.timezone, false),
        to: boundInstant(range.end, provider.timezone, true),
      }));
    const slots = await this.search(scope, spans, policy, undefined, exceptId);
    slots.sort((a, b) => a.start.localeCompare(b.start) || a.providerId.localeCompare(b.providerId));
    return slots;
  }

  /**
   * Why [start, start + duration) cannot be booked with this provider under the policy (`exceptId`: the
   * appointment being moved); undefined when it can. Run inside the booking's transaction, after the
   * provider's lock, so that buffers and the daily cap see every committed booking; the exclusion
   * constraint still settles overlaps, race-free.
   */
  async unbookable(
    scope: TenantScope,
    provider: ProviderEntity,
    start: number,
    policy: BookingPolicy,
    options: { exceptId?: string; tx?: EntityManager } = {},
  ): Promise<Unbookable | undefined> {
    if (!provider.isActive) return 'provider_inactive';
    const now = await this.clock.nowMs(scope, options.tx);
    if (start < now) return 'in_the_past';
    if (!withinWorkingHours(provider.timezone, provider.workingHours, start, policy.duration)) return 'outside_working_hours';
    if (policy.onGrid && !withinWorkingHours(provider.timezone, provider.workingHours, start, policy.duration, policy.step))
      return 'off_grid';
    const end = start + policy.duration * MINUTE;
    const [off, held] = await Promise.all([
      this.timeOff.overlapping(scope, [provider.id], new Date(start), new Date(end), options.tx),
      this.appointments.held(
        scope,
        [provider.id],
        new Date(start - HELD_MARGIN),
        new Date(end + HELD_MARGIN),
        new Date(now),
        options.exceptId,
        options.tx,
      ),
    ]);
    if (overlapsAny(start, end, off.map(interval))) return 'time_off';
    return policyRefusal(policy, provider.timezone, start, now, held.map(heldAppointment));
  }

  /**
   * The next free slots of these providers from `after` (or the policy's earliest start, if later) under
   * the full policy: a refused booking's alternatives, at most three, ascending.
   */
  async alternatives(
    scope: TenantScope,
    providers: ProviderEntity[],
    after: number,
    policy: BookingPolicy,
    exceptId?: string,
  ): Promise<SlotDto[]> {
    const active = providers.filter((p) => p.isActive);
    const { earliest, latest } = startBounds(policy, await this.clock.nowMs(scope));
    let from = Math.max(after, earliest);
    const horizon = Math.min(from + ALTERNATIVES_HORIZON_DAYS * DAY, latest + policy.duration * MINUTE);
    const found: SlotDto[] = [];
    while (active.length && found.length < ALTERNATIVES && from < horizon) {
      const to = Math.min(from + 31 * DAY, horizon);
      found.push(
        ...(await this.search(
          scope,
          active.map((provider) => ({ provider, from, to })),
          policy,
          ALTERNATIVES,
          exceptId,
        )),
      );
      from = to;
    }
    found.sort((a, b) => a.start.localeCompare(b.start) || a.providerId.localeCompare(b.providerId));
    return found.slice(0, ALTERNATIVES);
  }

  /** Free slots of each span under the policy: working hours, time off, notice, horizon, buffers and daily cap. */
  private async search(scope: TenantScope, spans: Span[], policy: BookingPolicy, limit?: number, exceptId?: string): Promise<SlotDto[]> {
    const now = await this.clock.nowMs(scope);
    const { earliest, latest } = startBounds(policy, now);
    // Nothing starts after the horizon: the search stops there.
    const live = spans.map((s) => ({ ...s, to: Math.min(s.to, latest + policy.duration * MINUTE) })).filter((s) => s.to > s.from);
    if (!live.length) return [];
    const from = Math.min(...live.map((s) => s.from));
    const to = Math.max(...live.map((s) => s.to));
    const ids = live.map((s) => s.provider.id);
    const [held, off] = await Promise.all([
      this.appointments.held(scope, ids, new Date(from - HELD_MARGIN), new Date(to + HELD_MARGIN), new Date(now), exceptId),
      this.timeOff.overlapping(scope, ids, new Date(from), new Date(to)),
    ]);
    const heldBy = groupBy(held.map((h) => ({ providerId: h.providerId, held: heldAppointment(h) })));
    const offBy = groupBy(off.map((t) => ({ providerId: t.providerId, held: interval(t) })));
    return live.flatMap(({ provider, from: spanFrom, to: spanTo }) => {
      const mine = heldBy.get(provider.id) ?? [];
      const underCap = underDailyCap(policy, provider.timezone, mine);
      const slots = freeSlots({
        timezone: provider.timezone,
        workingHours: provider.workingHours,
        from: spanFrom,
        to: spanTo,
        duration: policy.duration,
        step: policy.step,
        busy: blockedSpans(policy, mine, offBy.get(provider.id) ?? []),
        now: Math.max(now, earliest),
        allow: (start) => start <= latest && underCap(start),
        limit,
      });
      return toSlots(provider.id, slots);
    });
  }
}

/** The providers among these who offer the type (all of them without a type, or for a type with no providerIds). */
export function offering(type: { providerIds: string[] } | undefined | null, providers: ProviderEntity[]): ProviderEntity[] {
  if (!type?.providerIds.length) return providers;
  const allowed = new Set(type.providerIds);
  return providers.filter((p) => allowed.has(p.id));
}

/** A duration sent beside an appointment type must be the type's: 400 naming the field otherwise. */
export function checkDuration(type: AppointmentTypeEntity, duration: number | undefined, field: string): void {
  if (duration !== undefined && duration !== type.durationMinutes) {
    throw new ValidationFailedException([
      { field, message: `must be the appointment type's durationMinutes (${type.durationMinutes}) or omitted` },
    ]);
  }
}

function heldAppointment(h: HeldTime): HeldAppointment {
  return {
    startsAt: h.startsAt.getTime(),
    endsAt: h.endsAt.getTime(),
    typeId: h.typeId,
    bufferBefore: h.bufferBefore,
    bufferAfter: h.bufferAfter,
  };
}

function groupBy<T>(rows: { providerId: string; held: T }[]): Map<string, T[]> {
  const byProvider = new Map<string, T[]>();
  for (const { providerId, held } of rows) {
    const list = byProvider.get(providerId);
    if (list) list.push(held);
    else byProvider.set(providerId, [held]);
  }
  return byProvider;
}

function interval(t: { startAt: Date; endAt: Date }): Interval {
  return { start: t.startAt.getTime(), end: t.endAt.getTime() };
}

function toSlots(providerId: string, spans: Interval[]): SlotDto[] {
  return spans.map((s) => ({ providerId, start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString() }));
}
