import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { JobOutbox } from '../../common/queue/job-outbox';
import { EmailSendPayload, JobName } from '../../common/queue/queues';
import { AppConfig } from '../../config/app-config';

/**
 * A message's send job (jobId = message id) and its retry policy, which the configuration sets. The job
 * is recorded in the transaction that writes the message (JobOutbox), so a job never runs before its row
 * is visible and a rolled-back message never gets one.
 */
@Injectable()
export class EmailSendJobs {
  constructor(
    private readonly outbox: JobOutbox,
    private readonly config: AppConfig,
  ) {}

  /** Records the job in `tx`; it is added once `tx` commits. */
  record(payload: EmailSendPayload, tx: EntityManager): Promise<void> {
    const { maxAttempts, retryBaseMs } = this.config.email;
    return this.outbox.add(
      JobName.EmailSend,
      payload,
      { jobId: payload.messageId, attempts: maxAttempts, backoff: { type: 'exponential', delay: retryBaseMs } },
      tx,
    );
  }

  /** How long BullMQ waits before the try after `attemptsMade` failed ones. */
  retryDelayMs(attemptsMade: number): number {
    return this.config.email.retryBaseMs * 2 ** Math.max(0, attemptsMade - 1);
  }
}
