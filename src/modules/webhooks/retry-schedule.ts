/** The longest wait between two attempts, as a multiple of the base delay (6 hours at the 30 s default). */
export const MAX_DELAY_FACTOR = 720;
/** Each delay is drawn from ±20% of its nominal value, so endpoints that failed together retry apart. */
export const JITTER = 0.2;

/**
 * The wait before the next attempt after `failedAttempts` failures: base × 2^(failures − 1), capped at
 * MAX_DELAY_FACTOR × base, with jitter. With the defaults (30 s, 15 attempts) the retries span 26 to 39
 * hours.
 */
export function retryDelayMs(failedAttempts: number, baseMs: number, random: () => number = Math.random): number {
  const nominal = Math.min(baseMs * 2 ** Math.max(0, failedAttempts - 1), baseMs * MAX_DELAY_FACTOR);
  return Math.round(nominal * (1 - JITTER + 2 * JITTER * random()));
}
