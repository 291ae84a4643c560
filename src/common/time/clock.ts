/**
 * The one "now" that business rules read (booking notice and horizons, "never in the past", expiry,
 * retention, sweeps, due jobs). It is the system clock moved by an offset that only tests set, so that a
 * suite can run as if on another date: a rule that reads Date.now() or SQL now() directly would not move
 * with it.
 */
let offsetMs = 0;

export const clock = {
  now(): Date {
    return new Date(Date.now() + offsetMs);
  },
  nowMs(): number {
    return Date.now() + offsetMs;
  },
  /** Set once at start-up from configuration, or by a test. */
  setOffsetMs(ms: number): void {
    offsetMs = ms;
  },
  offsetMs(): number {
    return offsetMs;
  },
};
