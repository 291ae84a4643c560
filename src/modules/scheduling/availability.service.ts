import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../common/auth/auth.types';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { AppointmentsRepository } from './appointments.repository';
import { boundInstant, DateRange, parseRange } from './date-range';
import { AvailabilityDto, AvailabilityQueryDto, SlotDto } from './dto/availability.dto';
import { ProviderEntity } from './entities/provider.entity';
import { ProvidersRepository } from './providers.repository';
import { ProvidersService } from './providers.service';
import { freeSlots, Interval, overlapsAny, withinWorkingHours } from './slots';
import { TimeOffRepository } from './time-off.repository';

export const DEFAULT_DURATION = 30;
const MINUTE = 60_000;
const DAY = 86_400_000;
/** How far ahead alternatives to a refused booking are looked for. */
const ALTERNATIVES_HORIZON_DAYS = 93;
const ALTERNATIVES = 3;

/** Why a span cannot be booked, apart from overlapping another appointment (the database decides that). */
export type Unbookable = 'in_the_past' | 'outside_working_hours' | 'time_off' | 'provider_inactive';

@Injectable()
export class AvailabilityService {
  constructor(
    private readonly providers: ProvidersRepository,
    private readonly providersService: ProvidersService,
    private readonly timeOff: TimeOffRepository,
    private readonly appointments: AppointmentsRepository,
  ) {}

  /** GET /scheduling/availability: one provider's free slots, or every active provider's. */
  async availability(auth: AuthContext, query: AvailabilityQueryDto): Promise<AvailabilityDto> {
    const range = parseRange(query.startDate, query.endDate);
    const duration = query.duration ?? DEFAULT_DURATION;
    const providers = query.providerId ? [await this.providersService.require(auth, query.providerId)] : await this.providers.active(auth);
    return { slots: await this.slotsFor(auth, providers, range, duration) };
  }

  /**
   * The free slots of these providers (inactive ones have none) in a checked range, each naming its
   * provider, ascending by start then provider. A date bound is read in each provider's timezone.
   */
  async slotsFor(scope: TenantScope, providers: ProviderEntity[], range: DateRange, duration: number): Promise<SlotDto[]> {
    const spans = providers
      .filter((p) => p.isActive)
      .map((provider) => ({
        provider,
        from: boundInstant(range.start, provider.timezone, false),
        to: boundInstant(range.end, provider.timezone, true),
      }))
      .filter((s) => s.to > s.from);
    if (!spans.length) return [];
    const busy = await this.busy(
      scope,
      spans.map((s) => s.provider.id),
      Math.min(...spans.map((s) => s.from)),
      Math.max(...spans.map((s) => s.to)),
    );
    const now = clock.nowMs();
    const slots = spans.flatMap(({ provider, from, to }) =>
      toSlots(provider.id, freeSlots({ ...schedule(provider), from, to, duration, busy: busy.get(provider.id) ?? [], now })),
    );
    slots.sort((a, b) => a.start.localeCompare(b.start) || a.providerId.localeCompare(b.providerId));
    return slots;
  }

  /**
   * Why [start, start + duration) cannot be booked with this provider, ignoring other appointments
   * (the exclusion constraint settles those, race-free); undefined when it can.
   */
  async unbookable(
    scope: TenantScope,
    provider: ProviderEntity,
    start: number,
    duration: number,
    tx?: EntityManager,
  ): Promise<Unbookable | undefined> {
    if (!provider.isActive) return 'provider_inactive';
    if (start < clock.nowMs()) return 'in_the_past';
    if (!withinWorkingHours(provider.timezone, provider.workingHours, start, duration)) return 'outside_working_hours';
    const end = start + duration * MINUTE;
    const off = await this.timeOff.overlapping(scope, [provider.id], new Date(start), new Date(end), tx);
    if (overlapsAny(start, end, off.map(interval))) return 'time_off';
    return undefined;
  }

  /** The provider's next free slots of this duration from `after` (or now, if later): a refused booking's alternatives. */
  async alternatives(scope: TenantScope, provider: ProviderEntity, after: number, duration: number): Promise<SlotDto[]> {
    if (!provider.isActive) return [];
    const now = clock.nowMs();
    let from = Math.max(after, now);
    const horizon = from + ALTERNATIVES_HORIZON_DAYS * DAY;
    const found: Interval[] = [];
    while (found.length < ALTERNATIVES && from < horizon) {
      const to = Math.min(from + 31 * DAY, horizon);
      const busy = (await this.busy(scope, [provider.id], from, to)).get(provider.id) ?? [];
      found.push(...freeSlots({ ...schedule(provider), from, to, duration, busy, now, limit: ALTERNATIVES - found.length }));
      from = to;
    }
    return toSlots(provider.id, found);
  }

  /** Active appointments and time off of these providers overlapping [from, to), per provider. */
  private async busy(scope: TenantScope, providerIds: string[], from: number, to: number): Promise<Map<string, Interval[]>> {
    const [held, off] = await Promise.all([
      this.appointments.held(scope, providerIds, new Date(from), new Date(to)),
      this.timeOff.overlapping(scope, providerIds, new Date(from), new Date(to)),
    ]);
    const byProvider = new Map<string, Interval[]>();
    const add = (providerId: string, span: Interval): void => {
      const list = byProvider.get(providerId);
      if (list) list.push(span);
      else byProvider.set(providerId, [span]);
    };
    for (const a of held) add(a.providerId, { start: a.startsAt.getTime(), end: a.endsAt.getTime() });
    for (const t of off) add(t.providerId, interval(t));
    return byProvider;
  }
}

function schedule(provider: ProviderEntity): { timezone: string; workingHours: ProviderEntity['workingHours'] } {
  return { timezone: provider.timezone, workingHours: provider.workingHours };
}

function interval(t: { startAt: Date; endAt: Date }): Interval {
  return { start: t.startAt.getTime(), end: t.endAt.getTime() };
}

function toSlots(providerId: string, spans: Interval[]): SlotDto[] {
  return spans.map((s) => ({ providerId, start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString() }));
}
