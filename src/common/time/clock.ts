/**
 * The one "now" that business rules read (booking notice and horizons, "never in the past", expiry,
 * retention, due jobs). It is the system clock moved by an offset that only tests set, so that a suite can
 * run as if on another date: a rule that reads Date.now() or SQL now() directly would not move with it.
 */
let offsetMs = 0;
const listeners = new Set<() => void>();

export const clock = {
  now(): Date {
    return new Date(Date.now() + offsetMs);
  },
  nowMs(): number {
    return Date.now() + offsetMs;
  },
  /** Set once at start-up from configuration, or by a test. */
  setOffsetMs(ms: number): void {
    if (ms === offsetMs) return;
    offsetMs = ms;
    for (const listener of listeners) listener();
  },
  offsetMs(): number {
    return offsetMs;
  },
  /**
   * Calls `listener` whenever the offset moves, so that work timed by this clock (delayed jobs, whose
   * queue counts real milliseconds) can be timed again; answers the function that stops it.
   */
  onMove(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};
