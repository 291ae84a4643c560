import type { RateLimitWindow } from '../../config/app-config';
import { clock } from '../time/clock';
import type { SlidingWindowResult } from './sliding-window.storage';

/** Subjects kept at most; past it the least recently counted one is forgotten. */
const MAX_SUBJECTS = 10_000;

/**
 * The sliding-window log of SlidingWindowStorage, in this process's memory: what the rate limiter counts
 * with while Redis is unreachable, so that each instance still holds every subject to the same limits
 * (not unlimited) and requests do not wait on Redis. Same rules: every window is checked before
 * anything is recorded, a refused request uses no quota, and each window says when it frees a request.
 */
export class LocalSlidingWindow {
  /** Per subject, the times (ms) of its counted requests, oldest first. */
  private readonly logs = new Map<string, number[]>();

  evaluate(subject: string, windows: readonly RateLimitWindow[], record: boolean): SlidingWindowResult {
    const now = clock.nowMs();
    const longest = Math.max(...windows.map((w) => w.seconds * 1000));
    let log = this.logs.get(subject) ?? [];
    const expired = firstAfter(log, now - longest);
    if (expired) log = log.slice(expired);
    const counts = windows.map((w) => log.length - firstAfter(log, now - w.seconds * 1000));
    const allowed = windows.every((w, i) => counts[i] < w.limit);
    if (record && allowed) {
      log.push(now);
      for (let i = 0; i < counts.length; i++) counts[i]++;
    }
    if (log.length) this.remember(subject, log);
    else this.logs.delete(subject);
    return {
      allowed,
      nowMs: now,
      windows: windows.map((window, i) => {
        const count = counts[i];
        const length = window.seconds * 1000;
        // The entry whose leaving makes room for one more request, in age order within the window.
        const entry = count > 0 ? log[log.length - count + Math.max(0, count - window.limit)] : undefined;
        return { window, count, freesInMs: entry === undefined ? 0 : Math.max(0, entry + length - now) };
      }),
    };
  }

  private remember(subject: string, log: number[]): void {
    // Re-inserted, so that the map's order is least recently counted first.
    this.logs.delete(subject);
    this.logs.set(subject, log);
    if (this.logs.size > MAX_SUBJECTS) this.logs.delete(this.logs.keys().next().value!);
  }
}

/** The index of the first time in `log` (ascending) after `since`. */
function firstAfter(log: readonly number[], since: number): number {
  let low = 0;
  let high = log.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (log[mid] <= since) low = mid + 1;
    else high = mid;
  }
  return low;
}
