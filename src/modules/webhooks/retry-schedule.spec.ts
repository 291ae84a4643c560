import { JITTER, MAX_DELAY_FACTOR, retryDelayMs } from './retry-schedule';

const HOUR = 3_600_000;

describe('retryDelayMs', () => {
  it('doubles from the base, then stays at the cap', () => {
    const middle = (): number => 0.5; // no jitter
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1000, middle))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(30, 1000, middle)).toBe(1000 * MAX_DELAY_FACTOR);
  });

  it('jitters within ±20%', () => {
    expect(retryDelayMs(3, 1000, () => 0)).toBe(4000 * (1 - JITTER));
    expect(retryDelayMs(3, 1000, () => 1)).toBe(4000 * (1 + JITTER));
  });

  it('retries for at least 24 hours with the defaults, even at the shortest jitter', () => {
    const total = (random: () => number): number =>
      Array.from({ length: 14 }, (_, i) => retryDelayMs(i + 1, 30_000, random)).reduce((a, b) => a + b, 0);
    expect(total(() => 0)).toBeGreaterThanOrEqual(24 * HOUR);
    expect(total(() => 1)).toBeLessThan(48 * HOUR);
  });
});
