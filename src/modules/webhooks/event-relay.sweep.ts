import { Injectable } from '@nestjs/common';
import { inBatches } from '../../common/queue/in-batches';
import { OnJob } from '../../common/queue/job-handler';
import { JobName } from '../../common/queue/queues';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
import { OutboxRelayRepository } from './outbox-relay.repository';
import { WebhookDeliveryJobs } from './webhook-delivery-jobs.service';

/** Events fanned out per transaction. */
const BATCH = 200;

/**
 * Fans committed events out into deliveries: a periodic job, every EVENTS_RELAY_INTERVAL_MS once in the
 * cluster. Any number of relays may run at once all the same: each event is fanned out by exactly one (see
 * OutboxRelayRepository.dispatch). Each delivery's first attempt is recorded in the same transaction
 * (JobOutbox), so nothing committed is lost.
 */
@Injectable()
export class EventRelay {
  constructor(
    private readonly config: AppConfig,
    private readonly transactions: Transactions,
    private readonly relay: OutboxRelayRepository,
    private readonly jobs: WebhookDeliveryJobs,
  ) {}

  /** One pass: fans out every undispatched event. */
  @OnJob(JobName.EventRelay)
  async runOnce(): Promise<void> {
    await inBatches(BATCH, (limit) =>
      this.transactions.run(async (tx) => {
        const dispatched = await this.relay.dispatch(limit, this.config.webhooks.maxAttempts, tx);
        await this.jobs.record(dispatched.deliveries, {}, tx);
        return dispatched.events;
      }),
    );
  }
}
