import {
  blockedSpans,
  BookingPolicy,
  changeDeadline,
  durationPolicy,
  HeldAppointment,
  overridden,
  policyRefusal,
  startBounds,
  typePolicy,
  underDailyCap,
} from './appointment-policies';

const NY = 'America/New_York';
const MINUTE = 60_000;
const at = (iso: string): number => Date.parse(iso);

const type = (over: Partial<Parameters<typeof typePolicy>[0]> = {}): BookingPolicy =>
  typePolicy({
    id: 'type-a',
    durationMinutes: 60,
    slotIntervalMinutes: 15,
    bufferBeforeMinutes: 0,
    bufferAfterMinutes: 0,
    minimumNoticeMinutes: 0,
    bookingHorizonDays: 365,
    maxPerDayPerProvider: null,
    reminders: [],
    ...over,
  });

const held = (start: string, minutes: number, over: Partial<HeldAppointment> = {}): HeldAppointment => ({
  startsAt: at(start),
  endsAt: at(start) + minutes * MINUTE,
  typeId: 'type-a',
  bufferBefore: 0,
  bufferAfter: 0,
  ...over,
});

describe('appointment policies', () => {
  it('a bare duration has the grid of the duration or 15 minutes, and no other policy', () => {
    expect(durationPolicy(10)).toMatchObject({
      typeId: null,
      step: 10,
      bufferBefore: 0,
      noticeMinutes: 0,
      horizonDays: null,
      maxPerDay: null,
    });
    expect(durationPolicy(45).step).toBe(15);
  });

  it('notice and horizon are instants counted from now', () => {
    const now = at('2027-03-13T12:00:00Z');
    const { earliest, latest } = startBounds(type({ minimumNoticeMinutes: 1440, bookingHorizonDays: 2 }), now);
    expect(new Date(earliest).toISOString()).toBe('2027-03-14T12:00:00.000Z');
    // Two days of 24 hours, whatever the clocks of New York do on the 14th.
    expect(new Date(latest).toISOString()).toBe('2027-03-15T12:00:00.000Z');
  });

  it('widens each appointment by its own buffers and by the new slot’s', () => {
    const policy = type({ bufferBeforeMinutes: 10, bufferAfterMinutes: 5 });
    const spans = blockedSpans(policy, [held('2027-03-10T15:00:00Z', 30, { bufferBefore: 20, bufferAfter: 15 })], []);
    // The new slot's end + 5 may not reach 14:40 (15:00 − 20); its start − 10 may not be before 15:45.
    expect(spans).toEqual([{ start: at('2027-03-10T14:35:00Z'), end: at('2027-03-10T15:55:00Z') }]);
    expect(blockedSpans(overridden(policy), [held('2027-03-10T15:00:00Z', 30, { bufferBefore: 20, bufferAfter: 15 })], [])).toEqual([
      { start: at('2027-03-10T15:00:00Z'), end: at('2027-03-10T15:30:00Z') },
    ]);
  });

  it('refuses, in order: too soon, beyond the horizon, an overlap, a buffer, the daily cap', () => {
    const now = at('2027-03-10T12:00:00Z');
    const policy = type({ minimumNoticeMinutes: 60, bookingHorizonDays: 10, bufferAfterMinutes: 15, maxPerDayPerProvider: 1 });
    expect(policyRefusal(policy, NY, at('2027-03-10T12:59:00Z'), now, [])).toBe('too_soon');
    expect(policyRefusal(policy, NY, at('2027-03-10T13:00:00Z'), now, [])).toBeUndefined();
    expect(policyRefusal(policy, NY, at('2027-03-20T12:00:00Z'), now, [])).toBeUndefined();
    expect(policyRefusal(policy, NY, at('2027-03-20T12:00:01Z'), now, [])).toBe('beyond_horizon');
    const other = held('2027-03-11T15:00:00Z', 60, { typeId: 'type-b' });
    expect(policyRefusal(policy, NY, at('2027-03-11T15:30:00Z'), now, [other])).toBe('overlap');
    // The new slot's 15 minutes after: 13:50–14:50 + 15 reaches 15:05.
    expect(policyRefusal(policy, NY, at('2027-03-11T13:50:00Z'), now, [other])).toBe('buffer');
    expect(policyRefusal(policy, NY, at('2027-03-11T13:45:00Z'), now, [other])).toBeUndefined();
    const same = held('2027-03-11T20:00:00Z', 60);
    expect(policyRefusal(policy, NY, at('2027-03-11T13:00:00Z'), now, [same])).toBe('daily_cap');
    expect(policyRefusal(overridden(policy), NY, at('2027-03-11T13:00:00Z'), now, [same])).toBeUndefined();
  });

  it('counts the daily cap by the provider’s local day, across a daylight-saving change', () => {
    const policy = type({ maxPerDayPerProvider: 2 });
    // The Sunday of New York's spring change is 23 hours long: 05:00Z to 04:00Z the next day.
    const sunday = [held('2027-03-14T05:00:00Z', 60), held('2027-03-15T03:00:00Z', 60)];
    const allowed = underDailyCap(policy, NY, sunday);
    expect(allowed(at('2027-03-14T20:00:00Z'))).toBe(false);
    expect(allowed(at('2027-03-15T03:59:59Z'))).toBe(false);
    expect(allowed(at('2027-03-15T04:00:00Z'))).toBe(true);
    expect(allowed(at('2027-03-14T04:59:59Z'))).toBe(true);
    // Another type's appointments do not count.
    expect(underDailyCap(type({ id: 'type-b', maxPerDayPerProvider: 1 }), NY, sunday)(at('2027-03-14T20:00:00Z'))).toBe(true);
  });

  it('closes the change window at start − the cancellation window, 24 hours without a type', () => {
    expect(changeDeadline(at('2027-03-10T15:00:00Z'), 90)).toBe(at('2027-03-10T13:30:00Z'));
    expect(changeDeadline(at('2027-03-10T15:00:00Z'), null)).toBe(at('2027-03-09T15:00:00Z'));
  });
});
