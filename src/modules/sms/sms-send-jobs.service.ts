import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { JobOutbox } from '../../common/queue/job-outbox';
import { JobName, SmsSendPayload } from '../../common/queue/queues';
import { AppConfig } from '../../config/app-config';

/**
 * A message's send job (jobId = message id) and its retry policy, which the configuration sets. The job
 * is recorded in the transaction that writes the message (JobOutbox), so a job never runs before its row
 * is visible and a rolled-back message never gets one.
 */
@Injectable()
export class SmsSendJobs {
  constructor(
    private readonly outbox: JobOutbox,
    private readonly config: AppConfig,
  ) {}

  /** Records the job in `tx`; it is added once `tx` commits. */
  record(payload: SmsSendPayload, tx: EntityManager): Promise<void> {
    const { maxAttempts, retryBaseMs } = this.config.sms;
    return this.outbox.add(
      JobName.SmsSend,
      payload,
      { jobId: payload.messageId, attempts: maxAttempts, backoff: { type: 'exponential', delay: retryBaseMs } },
      tx,
    );
  }
}
