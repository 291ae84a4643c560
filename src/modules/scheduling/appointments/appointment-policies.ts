import { DateTime } from 'luxon';
import type { ReminderRule } from '../appointment-types/entities/appointment-type.entity';
import { gridStep, Interval } from '../availability/slots';

/** The ranges of an appointment type's members. */
export const POLICY_LIMITS = {
  duration: { min: 5, max: 480 },
  buffer: { max: 240 },
  notice: { max: 43_200 },
  horizon: { min: 1, max: 730 },
  interval: { min: 5, max: 240 },
  perDay: { min: 1, max: 100 },
  cancellationWindow: { max: 43_200 },
  waitlistOffer: { min: 5, max: 1440 },
  reminderOffset: { min: 1, max: 43_200 },
  reminders: { max: 5 },
} as const;

export const REMINDER_CHANNELS = ['email', 'sms'] as const;
export type ReminderChannel = (typeof REMINDER_CHANNELS)[number];

/** Without a type, a patient's link may change an appointment until this long before it starts. */
export const DEFAULT_CHANGE_WINDOW_MINUTES = 1440;

const MINUTE = 60_000;
const DAY = 86_400_000;

/** The rules a slot or a booking is held to: a type's, or those of a bare duration (no buffers, notice, horizon or cap). */
export interface BookingPolicy {
  /** The type whose appointments the daily cap counts; null for a bare duration. */
  typeId: string | null;
  /** Minutes. */
  duration: number;
  /** Minutes between slot starts. */
  step: number;
  /** Whether a booking must start on that grid (a type's, unless overridden), as availability offers it. */
  onGrid: boolean;
  bufferBefore: number;
  bufferAfter: number;
  noticeMinutes: number;
  /** Days of 24 hours; null: no horizon. */
  horizonDays: number | null;
  maxPerDay: number | null;
  /** Whether other appointments' buffers apply (all but overridePolicies). */
  othersBuffers: boolean;
  /** The reminders a booking plans: its type's rules (none for a bare duration). */
  reminders: readonly ReminderRule[];
}

/** What a policy is made from (an appointment type's members). */
export interface PolicySource {
  id: string;
  durationMinutes: number;
  slotIntervalMinutes: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  minimumNoticeMinutes: number;
  bookingHorizonDays: number;
  maxPerDayPerProvider: number | null;
  reminders: readonly ReminderRule[];
}

export function typePolicy(type: PolicySource): BookingPolicy {
  return {
    typeId: type.id,
    duration: type.durationMinutes,
    step: type.slotIntervalMinutes,
    onGrid: true,
    bufferBefore: type.bufferBeforeMinutes,
    bufferAfter: type.bufferAfterMinutes,
    noticeMinutes: type.minimumNoticeMinutes,
    horizonDays: type.bookingHorizonDays,
    maxPerDay: type.maxPerDayPerProvider,
    othersBuffers: true,
    reminders: type.reminders,
  };
}

/** The members of a policy that holds a booking to nothing but its length, working hours and other appointments. */
const NO_LIMITS = { onGrid: false, bufferBefore: 0, bufferAfter: 0, noticeMinutes: 0, horizonDays: null, maxPerDay: null } as const;

/** A bare duration: the grid of the duration or 15 minutes for availability, and no other policy. */
export function durationPolicy(duration: number): BookingPolicy {
  return { typeId: null, duration, step: gridStep(duration), ...NO_LIMITS, othersBuffers: true, reminders: [] };
}

/**
 * The policy `overridePolicies` books under: the same length (and type, for the record), but no grid,
 * notice, horizon, buffers or cap. Other appointments' buffers do not apply either; their time itself still does.
 */
export function overridden(policy: BookingPolicy): BookingPolicy {
  return { ...policy, ...NO_LIMITS, othersBuffers: false };
}

/** The default slot grid of a type: the smaller of its duration and 15 minutes. */
export const defaultSlotInterval = (durationMinutes: number): number => gridStep(durationMinutes);

/** An active appointment as the policies see it: its time, its type and that type's buffers. */
export interface HeldAppointment {
  startsAt: number;
  endsAt: number;
  typeId: string | null;
  bufferBefore: number;
  bufferAfter: number;
}

/**
 * The spans a new slot of this policy may not overlap, as plain intervals: each appointment widened by
 * its own buffers, and further by the new slot's buffers (the slot widened by its buffers overlaps the
 * widened appointment exactly when the slot itself overlaps this), plus the time off as it is.
 */
export function blockedSpans(policy: BookingPolicy, held: HeldAppointment[], timeOff: Interval[]): Interval[] {
  const spans: Interval[] = [...timeOff];
  const own = policy.othersBuffers ? 1 : 0;
  for (const a of held) {
    const before = (own * a.bufferBefore + policy.bufferAfter) * MINUTE;
    const after = (own * a.bufferAfter + policy.bufferBefore) * MINUTE;
    spans.push({ start: a.startsAt - before, end: a.endsAt + after });
  }
  return spans;
}

/** The earliest and latest start a policy allows at `now`: the minimum notice and the horizon, both instants. */
export function startBounds(policy: BookingPolicy, now: number): { earliest: number; latest: number } {
  return {
    earliest: now + policy.noticeMinutes * MINUTE,
    latest: policy.horizonDays === null ? Number.POSITIVE_INFINITY : now + policy.horizonDays * DAY,
  };
}

/**
 * The daily cap: a predicate telling whether a slot starting at an instant still fits under the policy's
 * cap on its local day (in the provider's zone), given the provider's active appointments. Counting is
 * by each appointment's start on the local calendar, so a day of 23 or 25 hours is one day.
 */
export function underDailyCap(policy: BookingPolicy, timezone: string, held: HeldAppointment[]): (start: number) => boolean {
  if (policy.maxPerDay === null || policy.typeId === null) return () => true;
  const cap = policy.maxPerDay;
  const perDay = new Map<string, number>();
  const dayOf = localDayKeys(timezone);
  for (const a of held) {
    if (a.typeId !== policy.typeId) continue;
    const key = dayOf(a.startsAt);
    perDay.set(key, (perDay.get(key) ?? 0) + 1);
  }
  return (start) => (perDay.get(dayOf(start)) ?? 0) < cap;
}

/**
 * The local date of an instant in a zone, memoized by local day: once a day's bounds are known, other
 * instants inside it are answered without Luxon (an availability request asks it for every slot).
 */
function localDayKeys(timezone: string): (instant: number) => string {
  const days: { start: number; end: number; key: string }[] = [];
  return (instant) => {
    for (const d of days) if (d.start <= instant && instant < d.end) return d.key;
    const local = DateTime.fromMillis(instant, { zone: timezone }).startOf('day');
    const day = { start: local.toMillis(), end: local.plus({ days: 1 }).toMillis(), key: local.toISODate()! };
    days.push(day);
    return day.key;
  };
}

/** Why a start cannot be booked under a policy's notice, horizon, buffers and cap (working hours and time off aside). */
export type PolicyRefusal = 'too_soon' | 'beyond_horizon' | 'overlap' | 'buffer' | 'daily_cap';

/**
 * The first policy [start, start + duration) breaks, given the provider's other active appointments
 * (the one being moved left out); undefined when it breaks none.
 */
export function policyRefusal(
  policy: BookingPolicy,
  timezone: string,
  start: number,
  now: number,
  held: HeldAppointment[],
): PolicyRefusal | undefined {
  const { earliest, latest } = startBounds(policy, now);
  if (start < earliest) return 'too_soon';
  if (start > latest) return 'beyond_horizon';
  const end = start + policy.duration * MINUTE;
  if (held.some((a) => a.startsAt < end && start < a.endsAt)) return 'overlap';
  if (blockedSpans(policy, held, []).some((s) => s.start < end && start < s.end)) return 'buffer';
  if (!underDailyCap(policy, timezone, held)(start)) return 'daily_cap';
  return undefined;
}

/** When a patient's link stops cancelling and rescheduling: the start less the type's window (24 hours without a type). */
export function changeDeadline(start: number, cancellationWindowMinutes: number | null): number {
  return start - (cancellationWindowMinutes ?? DEFAULT_CHANGE_WINDOW_MINUTES) * MINUTE;
}
