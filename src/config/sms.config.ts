import { IsIn, IsOptional, Matches } from 'class-validator';
import { ConfigError, IntVar } from './env';

export type SmsProviderName = 'log' | 'twilio';

const E164 = /^\+[1-9]\d{6,14}$/;

/** SMS: the provider, Twilio's account, and how a send is retried. */
export class SmsEnv {
  /** `log`: messages are marked sent and logged by id; `twilio`: sent through Twilio's Messages API. */
  @IsIn(['log', 'twilio'], { message: 'must be log or twilio' })
  SMS_PROVIDER: SmsProviderName = 'log';

  @IsOptional()
  @Matches(/^AC[0-9a-fA-F]{32}$/, { message: 'must be a Twilio account SID (AC followed by 32 hex digits)' })
  TWILIO_ACCOUNT_SID?: string = undefined;

  @IsOptional()
  @Matches(/^\S{16,128}$/, { message: 'must be a Twilio auth token (16-128 characters without spaces)' })
  TWILIO_AUTH_TOKEN?: string = undefined;

  @IsOptional()
  @Matches(E164, { message: 'must be a phone number in E.164 form (+15005550006)' })
  TWILIO_FROM?: string = undefined;

  /** Tests only: where the Twilio package's requests go instead of https://api.twilio.com. */
  @IsOptional()
  @Matches(/^https?:\/\/[^\s/]+\/?$/, { message: 'must be an http(s) origin such as http://127.0.0.1:4010' })
  TWILIO_API_BASE_URL?: string = undefined;

  /** Tries per SMS before it ends `failed` (a provider error or no answer each time). */
  @IntVar(1, 20)
  SMS_MAX_ATTEMPTS = 6;

  /** The first retry's delay; each later one doubles (5 s, 10 s, … 80 s by default). */
  @IntVar(10, 3_600_000)
  SMS_RETRY_BASE_MS = 5_000;

  /** How long one request to the provider may take before the try counts as failed (and is retried). */
  @IntVar(100, 60_000)
  SMS_TIMEOUT_MS = 10_000;
}

export interface SmsSettings {
  provider: SmsProviderName;
  /** Set together (start-up refuses SMS_PROVIDER=twilio without them); the token also verifies Twilio's callbacks. */
  twilio?: { accountSid: string; authToken: string; from: string; apiBaseUrl?: string };
  maxAttempts: number;
  retryBaseMs: number;
  timeoutMs: number;
}

/** SMS_PROVIDER=twilio needs its account, token and sender; one line names the first that is missing. */
export function smsSettings(vars: SmsEnv): SmsSettings {
  const { TWILIO_ACCOUNT_SID: accountSid, TWILIO_AUTH_TOKEN: authToken, TWILIO_FROM: from } = vars;
  if (vars.SMS_PROVIDER === 'twilio') {
    const missing = (['TWILIO_ACCOUNT_SID', 'TWILIO_AUTH_TOKEN', 'TWILIO_FROM'] as const).find((name) => !vars[name]);
    if (missing) throw new ConfigError(`Invalid configuration: ${missing} is required when SMS_PROVIDER=twilio`);
  }
  const apiBaseUrl = vars.TWILIO_API_BASE_URL?.replace(/\/$/, '');
  return {
    provider: vars.SMS_PROVIDER,
    twilio: accountSid && authToken && from ? { accountSid, authToken, from, apiBaseUrl } : undefined,
    maxAttempts: vars.SMS_MAX_ATTEMPTS,
    retryBaseMs: vars.SMS_RETRY_BASE_MS,
    timeoutMs: vars.SMS_TIMEOUT_MS,
  };
}
