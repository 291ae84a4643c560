import { APPOINTMENT_STATUSES, AppointmentStatus, canTransition, isActive } from './transitions';

// The documented transitions (docs/api.md, Scheduling), written out in full so that any change to the rules shows up here.
const ALLOWED: [AppointmentStatus, AppointmentStatus][] = [
  ['scheduled', 'confirmed'],
  ['scheduled', 'cancelled'],
  ['scheduled', 'no_show'],
  ['scheduled', 'completed'],
  ['confirmed', 'completed'],
  ['confirmed', 'cancelled'],
  ['confirmed', 'no_show'],
];

describe('appointment transitions', () => {
  const pairs = APPOINTMENT_STATUSES.flatMap((from) => APPOINTMENT_STATUSES.filter((to) => to !== from).map((to) => [from, to] as const));

  it.each(pairs)('%s -> %s follows the transition table', (from, to) => {
    const allowed = ALLOWED.some(([f, t]) => f === from && t === to);
    expect(canTransition(from, to)).toBe(allowed);
  });

  it('treats staying in a status as no transition', () => {
    for (const s of APPOINTMENT_STATUSES) expect(canTransition(s, s)).toBe(true);
  });

  it('makes completed, cancelled and no_show final', () => {
    for (const from of ['completed', 'cancelled', 'no_show'] as const) {
      expect(APPOINTMENT_STATUSES.filter((to) => to !== from && canTransition(from, to))).toEqual([]);
    }
  });

  it('counts only scheduled and confirmed as holding a slot', () => {
    expect(APPOINTMENT_STATUSES.filter(isActive)).toEqual(['scheduled', 'confirmed']);
  });
});
