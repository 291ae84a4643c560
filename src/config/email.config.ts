import { IsEmail, IsOptional, Matches } from 'class-validator';
import { IntVar } from './env';

/** Email: the relays, the sender, how a send is retried, and the length of a sequence step's minute. */
export class EmailEnv {
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string = undefined;

  /** A staging catch-all relay (Mailpit, MailHog) for test-mode email; unset, test-mode email is captured, never sent. */
  @IsOptional()
  @Matches(/^smtps?:\/\/\S+$/, { message: 'must be an smtp:// or smtps:// URL' })
  TEST_SMTP_URL?: string = undefined;

  @IsEmail({ allow_display_name: true }, { message: 'must be an email address' })
  EMAIL_FROM = 'Practice <no-reply@practice.local>';

  /** Tries per email before it ends `failed` (a failure before the message reached the server). */
  @IntVar(1, 20)
  EMAIL_MAX_ATTEMPTS = 6;

  /** The first retry's delay; each later one doubles (5 s, 10 s, … 80 s by default: about 2.5 minutes in all). */
  @IntVar(10, 3_600_000)
  EMAIL_RETRY_BASE_MS = 5_000;

  /** Tests only: how long one minute of a sequence step's delay lasts, so tests can wait out delays. */
  @IntVar(10, 60_000)
  EMAIL_SEQUENCE_MINUTE_MS = 60_000;
}

export interface EmailSettings {
  /** Unset: live messages go to the log transport (marked sent, `transport: "log"`). */
  smtpUrl?: string;
  /** TEST_SMTP_URL. Unset: test-mode messages are captured (marked sent, `transport: "test"`); never SMTP_URL. */
  testSmtpUrl?: string;
  from: string;
  maxAttempts: number;
  retryBaseMs: number;
}

export function emailSettings(vars: EmailEnv): EmailSettings {
  return {
    smtpUrl: vars.SMTP_URL,
    testSmtpUrl: vars.TEST_SMTP_URL,
    from: vars.EMAIL_FROM,
    maxAttempts: vars.EMAIL_MAX_ATTEMPTS,
    retryBaseMs: vars.EMAIL_RETRY_BASE_MS,
  };
}

/** `minuteMs`: the length of a step delay's minute (60,000 but in tests). */
export function sequenceSettings(vars: EmailEnv): { minuteMs: number } {
  return { minuteMs: vars.EMAIL_SEQUENCE_MINUTE_MS };
}
