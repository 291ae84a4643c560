import { DateTime } from 'luxon';
import type { ReminderRule } from '../appointment-types/entities/appointment-type.entity';
import type { ReminderStatus } from './entities/appointment-reminder.entity';

const MINUTE = 60_000;
/** Texts wait out the night in the provider's zone: none from QUIET_FROM:00 to QUIET_UNTIL:00. */
const QUIET_FROM = 21;
const QUIET_UNTIL = 8;

export interface PlannedReminder {
  sendAt: Date;
  status: Extract<ReminderStatus, 'scheduled' | 'skipped'>;
  reason: 'past' | 'quiet_hours' | null;
}

/**
 * When a rule's reminder of an appointment starting at `start` goes out, decided at `now` in the
 * provider's `zone`: at start − offset; `skipped` (past) if that time is not after now; an SMS due in quiet
 * hours waits until 08:00 local (a wall-clock time, so right across daylight-saving changes), or is
 * `skipped` (quiet_hours) if 08:00 is not before the start.
 */
export function planReminder(
  rule: Pick<ReminderRule, 'offsetMinutes' | 'channel'>,
  start: number,
  now: number,
  zone: string,
): PlannedReminder {
  const due = start - rule.offsetMinutes * MINUTE;
  if (due <= now) return { sendAt: new Date(due), status: 'skipped', reason: 'past' };
  if (rule.channel === 'sms') {
    const local = DateTime.fromMillis(due, { zone });
    if (local.hour >= QUIET_FROM || local.hour < QUIET_UNTIL) {
      const morning = (local.hour >= QUIET_FROM ? local.plus({ days: 1 }) : local).set({
        hour: QUIET_UNTIL,
        minute: 0,
        second: 0,
        millisecond: 0,
      });
      if (morning.toMillis() >= start) return { sendAt: new Date(due), status: 'skipped', reason: 'quiet_hours' };
      return { sendAt: new Date(morning.toMillis()), status: 'scheduled', reason: null };
    }
  }
  return { sendAt: new Date(due), status: 'scheduled', reason: null };
}
