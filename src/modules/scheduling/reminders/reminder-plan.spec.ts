import { DateTime } from 'luxon';
import { clock } from '../../../common/time/clock';
import { nextOffsetChange } from '../../../../test/helpers/dates';
import { planReminder } from './reminder-plan';

const NY = 'America/New_York';
const MINUTE = 60_000;
const sms = (offsetMinutes: number) => ({ channel: 'sms' as const, offsetMinutes });
const email = (offsetMinutes: number) => ({ channel: 'email' as const, offsetMinutes });
const local = (ms: number): string => DateTime.fromMillis(ms, { zone: NY }).toFormat('yyyy-MM-dd HH:mm');

describe('planReminder', () => {
  const now = clock.nowMs();
  // A day in New York a few weeks ahead and the days its clocks change, found from the clock's date.
  const day = DateTime.fromMillis(now, { zone: NY }).startOf('day').plus({ days: 20 });
  const at = (d: DateTime, time: string): number => d.set({ hour: +time.slice(0, 2), minute: +time.slice(3) }).toMillis();

  it('is due offsetMinutes before the start', () => {
    const start = at(day, '15:00');
    expect(planReminder(email(1440), start, now, NY)).toEqual({
      sendAt: new Date(start - 1440 * MINUTE),
      status: 'scheduled',
      reason: null,
    });
  });

  it('is skipped (past) when its time is not after now, at the exact instant too', () => {
    const start = now + 30 * MINUTE;
    expect(planReminder(email(30), start, now, NY)).toMatchObject({ status: 'skipped', reason: 'past' });
    expect(planReminder(email(31), start, now, NY)).toMatchObject({ status: 'skipped', reason: 'past' });
    expect(planReminder(email(29), start, now, NY)).toMatchObject({ status: 'scheduled', sendAt: new Date(start - 29 * MINUTE) });
  });

  it('sends an SMS due at 20:59 then, and one due at 21:00 or 07:59 at 08:00 local', () => {
    const start = at(day, '12:00');
    const due = (time: string, d = day) => (start - at(d, time)) / MINUTE;
    expect(local(planReminder(sms(due('20:59', day.minus({ days: 1 }))), start, now, NY).sendAt.getTime())).toBe(
      `${day.minus({ days: 1 }).toISODate()} 20:59`,
    );
    expect(local(planReminder(sms(due('21:00', day.minus({ days: 1 }))), start, now, NY).sendAt.getTime())).toBe(
      `${day.toISODate()} 08:00`,
    );
    expect(local(planReminder(sms(due('07:59')), start, now, NY).sendAt.getTime())).toBe(`${day.toISODate()} 08:00`);
    expect(local(planReminder(sms(due('08:00')), start, now, NY).sendAt.getTime())).toBe(`${day.toISODate()} 08:00`);
    // Email has no quiet hours.
    expect(local(planReminder(email(due('23:30', day.minus({ days: 1 }))), start, now, NY).sendAt.getTime())).toBe(
      `${day.minus({ days: 1 }).toISODate()} 23:30`,
    );
  });

  it('skips an SMS (quiet_hours) when 08:00 is at or after the start', () => {
    expect(planReminder(sms(60), at(day, '08:00'), now, NY)).toMatchObject({ status: 'skipped', reason: 'quiet_hours' });
    expect(planReminder(sms(60), at(day, '07:30'), now, NY)).toMatchObject({ status: 'skipped', reason: 'quiet_hours' });
    expect(planReminder(sms(60), at(day, '08:30'), now, NY)).toMatchObject({ status: 'scheduled', sendAt: new Date(at(day, '08:00')) });
  });

  it.each(['forward', 'back'] as const)('waits until 08:00 local across the night the clocks go %s', (direction) => {
    // The clocks change at 02:00 on `morning`.
    const morning = nextOffsetChange(NY, direction, 3);
    const eve = morning.minus({ days: 1 });
    const start = at(morning, '10:00');
    // Due at 22:00 the evening before: the night is 9 or 11 hours long, and 08:00 stays 08:00.
    const offset = (start - at(eve, '22:00')) / MINUTE;
    const planned = planReminder(sms(offset), start, now, NY);
    expect(local(planned.sendAt.getTime())).toBe(`${morning.toISODate()} 08:00`);
    expect(planned.sendAt.getTime()).toBe(start - 2 * 60 * MINUTE);
    expect(planned.sendAt.getTime() - at(eve, '22:00')).toBe((direction === 'forward' ? 9 : 11) * 60 * MINUTE);
    // Due at 01:30, before the change, inside quiet hours either way.
    const early = planReminder(sms((start - at(morning, '01:30')) / MINUTE), start, now, NY);
    expect(local(early.sendAt.getTime())).toBe(`${morning.toISODate()} 08:00`);
  });
});
