import { Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { EntityManager } from 'typeorm';
import { JobFailure } from '../queue/job-handler';
import type { MessageSendPayload } from '../queue/queues';
import { clock } from '../time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { deliveryFor } from './delivery';
import { CAPTURE_TRANSPORT, MessageTransport, TransportError } from './message-transport';
import type { OutgoingMessageEntity } from './outgoing-message.entity';
import type { ClaimedMessage, OutgoingMessagesRepository } from './outgoing-messages.repository';

/** What the sender needs of one channel (email, SMS): its rows, its transports, its consent rule and its events. */
export interface MessageChannel<M extends OutgoingMessageEntity> {
  readonly name: 'email' | 'sms';
  readonly messages: OutgoingMessagesRepository<M>;
  /** The channel's relays by mode (deliveryFor chooses among them), and where a live message goes without one. */
  readonly relays: { live?: MessageTransport<M>; test?: MessageTransport<M> };
  readonly log: MessageTransport<M>;
  /** Takes the message for one try (OutgoingMessagesRepository.claimRow); `toRelay`: the try goes to a relay. */
  claim(scope: TenantScope, id: string, toRelay: boolean): Promise<ClaimedMessage<M> | null>;
  /** Why the message must not go (the recipient opted out), or null; the same rule as when it was queued. */
  suppression(scope: TenantScope, message: M, tx: EntityManager): Promise<string | null>;
  /** How long BullMQ waits before the try after `attemptsMade` failed ones. */
  retryDelayMs(attemptsMade: number): number;
  /** Records `<channel>.sent` or `<channel>.failed` for a message this try settled. */
  recordEvent(scope: TenantScope, event: 'sent' | 'failed', message: M, tx: EntityManager): Promise<void>;
}

/**
 * The one state machine of an outgoing message, queued → sending → sent | failed | suppressed, run by each
 * channel's send job (jobId = message id), at least once: nothing a relay has not accepted is recorded as sent.
 * 1. a settled row ends the job; a `sending` row whose acceptance the job's data kept (`acceptedAs`) is settled
 *    sent without sending it again;
 * 2. the row is claimed (`queued → sending`, one more attempt, committed) before anything leaves; a row
 *    already `sending` was claimed by a run whose worker died before recording the answer: it is claimed and
 *    sent again. BullMQ's job lock keeps a live worker's message from being taken over;
 * 3. an opt-out meanwhile (the channel's consent rule, as at queueing) makes it `suppressed`, in one transaction;
 * 4. where it goes is deliveryFor's one decision: a test-mode message reaches only the channel's staging relay
 *    or the capture (`transport: "test"`), a live one without a relay goes to the log (`transport: "log"`);
 * 5. the relay's acceptance makes it `sent` (+ `<channel>.sent`; when PostgreSQL cannot take that record, the
 *    job's data keeps it and the next try records it without sending); a refusal for good makes it `failed`
 *    (+ `<channel>.failed`); anything else puts it back to `queued` with `nextAttemptAt` for a retry with
 *    backoff, until the attempts are used up.
 * Logs carry message ids and relay codes only, never addresses, numbers or content.
 */
@Injectable()
export class MessageSender {
  private readonly logger = new Logger(MessageSender.name);

  constructor(private readonly transactions: Transactions) {}

  async run<M extends OutgoingMessageEntity>(channel: MessageChannel<M>, job: Job<MessageSendPayload>): Promise<void> {
    const { messageId, tenantId, mode, acceptedAs } = job.data;
    const scope: TenantScope = { tenantId, mode };
    const delivery = deliveryFor(mode, channel.relays);
    const transport =
      delivery.to === 'relay' ? delivery.relay : delivery.to === 'capture' ? (CAPTURE_TRANSPORT as MessageTransport<M>) : channel.log;
    if (acceptedAs !== undefined && (await channel.messages.findById(scope, messageId))?.status === 'sending') {
      return void (await this.settleSent(channel, scope, messageId, transport.name, acceptedAs || null));
    }
    const claimed = await channel.claim(scope, messageId, delivery.to === 'relay');
    if (!claimed) return; // settled, or its tenant was deleted
    const { row } = claimed;
    const suppressed = await this.transactions.run(async (tx) => {
      const reason = await channel.suppression(scope, row, tx);
      if (reason !== null) await channel.messages.markSuppressed(scope, row.id, reason, tx);
      return reason !== null;
    });
    if (suppressed) return;
    if (claimed.from === 'sending' && delivery.to === 'relay') {
      this.logger.warn(`${channel.name} ${row.id}: its last try stopped before the relay's answer was recorded; sending it again`);
    }
    try {
      const relayId = await transport.send(scope, row);
      await recordAcceptance(job, relayId, () => this.settleSent(channel, scope, row.id, transport.name, relayId));
    } catch (err) {
      if (!(err instanceof TransportError)) throw err; // our own failure (database, Redis): retried as it is
      if (isLastTry(job, err.permanent)) {
        await this.settleFailed(channel, scope, row.id, err.message);
        throw new JobFailure(`${err.summary}: the message failed`, true);
      }
      const nextAttemptAt = new Date(clock.nowMs() + channel.retryDelayMs(job.attemptsMade + 1));
      await channel.messages.markRetry(scope, row.id, err.message, nextAttemptAt);
      throw new JobFailure(`${err.summary}: retrying`);
    }
  }

  /** BullMQ gave up on the job (attempts used up, or it stalled too often): the message ends failed. */
  async giveUp<M extends OutgoingMessageEntity>(channel: MessageChannel<M>, payload: MessageSendPayload, reason: string): Promise<void> {
    const scope: TenantScope = { tenantId: payload.tenantId, mode: payload.mode };
    const row = await channel.messages.findById(scope, payload.messageId);
    const error = errorOnGivingUp(row, reason);
    if (row && error !== null) await this.settleFailed(channel, scope, row.id, error);
  }

  private settleSent<M extends OutgoingMessageEntity>(
    channel: MessageChannel<M>,
    scope: TenantScope,
    id: string,
    transport: string,
    relayId: string | null,
  ): Promise<void> {
    return this.transactions.run(async (tx) => {
      const row = await channel.messages.markSent(scope, id, transport, relayId, tx);
      if (row) await channel.recordEvent(scope, 'sent', row, tx);
    });
  }

  private settleFailed<M extends OutgoingMessageEntity>(
    channel: MessageChannel<M>,
    scope: TenantScope,
    id: string,
    error: string,
  ): Promise<void> {
    return this.transactions.run(async (tx) => {
      const row = await channel.messages.markFailed(scope, id, error, tx);
      if (row) await channel.recordEvent(scope, 'failed', row, tx);
    });
  }
}

/** Whether a failed try ends the message: the transport refused it for good, or it was the job's last attempt. */
export function isLastTry(job: Job, permanent: boolean): boolean {
  return permanent || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/**
 * The error a message ends `failed` with when BullMQ gives up on its job (attempts used up, or it stalled
 * too often): a queued row keeps its last transport error; a sending one was stopped mid-try, which the
 * reason says. Null for a row that is settled or gone: nothing to record.
 */
export function errorOnGivingUp(row: { status: string; lastError: string | null } | null, reason: string): string | null {
  if (row?.status === 'queued') return row.lastError ?? reason;
  if (row?.status === 'sending') return reason;
  return null;
}

/**
 * Records a message its relay accepted. When the record fails (PostgreSQL away), the job's data in Redis keeps
 * the acceptance (`acceptedAs`) before the error goes on to retry the job, so that the next try records it
 * rather than sending the message again.
 */
async function recordAcceptance(job: Job<MessageSendPayload>, relayId: string | null, record: () => Promise<unknown>): Promise<void> {
  try {
    await record();
  } catch (err) {
    await job.updateData({ ...job.data, acceptedAs: relayId ?? '' }).catch(() => undefined);
    throw err;
  }
}
