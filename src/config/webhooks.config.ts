import { BoolVar, IntVar } from './env';

/** Webhook deliveries and the relay that turns committed events into them. */
export class WebhooksEnv {
  /** Development and tests only: lets webhook URLs be http and resolve to loopback or private addresses. */
  @BoolVar()
  WEBHOOK_ALLOW_PRIVATE_URLS = false;

  /** How long one webhook delivery attempt may take before it counts as failed. */
  @IntVar(100, 60_000)
  WEBHOOK_TIMEOUT_MS = 10_000;

  /** The first retry's delay; each later one doubles, capped at 720 times this (6 hours by default). */
  @IntVar(10, 3_600_000)
  WEBHOOK_RETRY_BASE_MS = 30_000;

  /** Attempts per delivery; with the default base, 15 attempts span 26 to 39 hours (jitter). */
  @IntVar(1, 50)
  WEBHOOK_MAX_ATTEMPTS = 15;

  /** How often a worker moves committed events from the outbox into delivery jobs. */
  @IntVar(10, 60_000)
  EVENTS_RELAY_INTERVAL_MS = 500;
}

export interface WebhookSettings {
  allowPrivateUrls: boolean;
  timeoutMs: number;
  retryBaseMs: number;
  maxAttempts: number;
  relayIntervalMs: number;
}

export function webhookSettings(vars: WebhooksEnv): WebhookSettings {
  return {
    allowPrivateUrls: vars.WEBHOOK_ALLOW_PRIVATE_URLS,
    timeoutMs: vars.WEBHOOK_TIMEOUT_MS,
    retryBaseMs: vars.WEBHOOK_RETRY_BASE_MS,
    maxAttempts: vars.WEBHOOK_MAX_ATTEMPTS,
    relayIntervalMs: vars.EVENTS_RELAY_INTERVAL_MS,
  };
}
