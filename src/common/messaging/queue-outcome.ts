/**
 * Why a message was not written at all: the recipient is no patient of the scope or has no address or
 * number (`no_address`), the
 * practice may not text the number (`not_textable`), the template is gone (`template_missing`), or the
 * template cannot be rendered for this recipient (`render_failed`). `field` and `message` name the input
 * at fault, for a caller that answers with a 400.
 */
export type RefusalReason = 'no_address' | 'not_textable' | 'template_missing' | 'render_failed';

/**
 * What queueing one message did: written and its send job recorded (`queued`), written as `suppressed`
 * because the recipient opted out (no job; `reason` is its lastError), or not written (`refused`).
 */
export type QueueOutcome =
  | { status: 'queued'; messageId: string }
  | { status: 'suppressed'; messageId: string; reason: string }
  | { status: 'refused'; reason: RefusalReason; field: string; message: string };

export type Refusal = Extract<QueueOutcome, { status: 'refused' }>;

export function refused(reason: RefusalReason, field: string, message: string): Refusal {
  return { status: 'refused', reason, field, message };
}
