import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A new signing secret: `whsec_` and 32 random bytes in base64 (the Standard Webhooks format). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The Standard Webhooks headers of one attempt. `webhook-id` is the event id, the same on every retry,
 * so receivers can drop duplicates; the timestamp is the attempt's. During a rotation's grace period the
 * signature header carries one signature per secret (space-separated), so either secret verifies.
 */
export function signedHeaders(secrets: string[], eventId: string, at: Date, body: string): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(' '),
  };
}
