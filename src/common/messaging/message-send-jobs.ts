import { EntityManager } from 'typeorm';
import { TenantScope } from '../../database/tenant-owned.entity';
import { JobOutbox } from '../queue/job-outbox';
import { JobName, JobPayloads, MessageSendPayload } from '../queue/queues';

/** The jobs that send one message: their payload names it and nothing more, and its id is the job's. */
export type MessageSendJobName = { [N in JobName]: MessageSendPayload extends JobPayloads[N] ? N : never }[JobName];

/** How often a message's send is tried and how long BullMQ waits between tries (doubling from `retryBaseMs`). */
export interface SendRetryPolicy {
  maxAttempts: number;
  retryBaseMs: number;
}

/**
 * A message's send job (jobId = message id) and its retry policy, which the configuration sets and JobQueue
 * applies to every add of the channel's queue (QUEUES' `retriesFrom`). The job is recorded in the transaction that writes the message (JobOutbox), so a job never runs before its row
 * is visible and a rolled-back message never gets one.
 */
export abstract class MessageSendJobs<N extends MessageSendJobName> {
  protected constructor(
    private readonly outbox: JobOutbox,
    private readonly name: N,
    private readonly policy: () => SendRetryPolicy,
  ) {}

  /** Records the send job of the scope's message `messageId` in `tx`; it is added once `tx` commits. */
  record(scope: TenantScope, messageId: string, tx: EntityManager): Promise<void> {
    const payload: MessageSendPayload = { messageId, tenantId: scope.tenantId, mode: scope.mode };
    return this.outbox.add(this.name, payload, { jobId: messageId }, tx);
  }

  /** How long BullMQ waits before the try after `attemptsMade` failed ones. */
  retryDelayMs(attemptsMade: number): number {
    return this.policy().retryBaseMs * 2 ** Math.max(0, attemptsMade - 1);
  }
}
