import { IntVar } from './env';

/** How a reminder's send job is retried. */
export class RemindersEnv {
  /** Tries per reminder job before the reminder ends `failed` (our own failure each time: database, Redis). */
  @IntVar(1, 20)
  REMINDER_MAX_ATTEMPTS = 7;

  /** The first retry's delay; each later one doubles (2 s, 4 s, … 64 s by default: about 2 minutes in all). */
  @IntVar(10, 3_600_000)
  REMINDER_RETRY_BASE_MS = 2_000;
}

export interface ReminderSettings {
  maxAttempts: number;
  retryBaseMs: number;
}

export function reminderSettings(vars: RemindersEnv): ReminderSettings {
  return { maxAttempts: vars.REMINDER_MAX_ATTEMPTS, retryBaseMs: vars.REMINDER_RETRY_BASE_MS };
}
