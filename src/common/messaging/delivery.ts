import type { Mode } from '../../database/tenant-owned.entity';

/** What a message is for; lists filter by it. */
export const MESSAGE_KINDS = ['send', 'sequence', 'reminder', 'booking_notice', 'waitlist_offer'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/**
 * Where one try of a message goes: `capture` (test mode without a staging relay: recorded as sent with
 * `transport: "test"`, reaching nobody), `log` (live mode without a provider configured), or `relay` (the
 * configured SMTP relay or SMS provider).
 */
export type Delivery<R> = { to: 'capture' } | { to: 'log' } | { to: 'relay'; relay: R };

/**
 * The one decision of where a message goes, for every channel and kind: a test-mode message reaches only
 * the channel's staging relay (TEST_SMTP_URL), never the live one, so that no code path that queues a
 * message can reach a real person from test data.
 */
export function deliveryFor<R>(mode: Mode, relays: { live?: R; test?: R }): Delivery<R> {
  if (mode === 'test') return relays.test ? { to: 'relay', relay: relays.test } : { to: 'capture' };
  return relays.live ? { to: 'relay', relay: relays.live } : { to: 'log' };
}
