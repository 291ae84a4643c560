import { Injectable } from '@nestjs/common';
import { DependencyStatus } from '../../common/observability/dependency-status';
import { inBatches, PeriodicSweep } from '../../common/queue/periodic-task';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
import { OutboxRelayRepository } from './outbox-relay.repository';
import { WebhookDeliveryJobs } from './webhook-delivery-jobs.service';

/** Events fanned out per transaction. */
const BATCH = 200;

/**
 * Fans committed events out into deliveries, every EVENTS_RELAY_INTERVAL_MS, in every worker process. Any
 * number of relays may run at once: each event is fanned out by exactly one (see
 * OutboxRelayRepository.dispatch). Each delivery's first attempt is recorded in the same transaction
 * (JobOutbox), so nothing committed is lost.
 */
@Injectable()
export class EventRelay extends PeriodicSweep {
  constructor(
    private readonly config: AppConfig,
    private readonly transactions: Transactions,
    private readonly relay: OutboxRelayRepository,
    private readonly jobs: WebhookDeliveryJobs,
    dependencies: DependencyStatus,
  ) {
    super(EventRelay.name, config.webhooks.relayIntervalMs, dependencies);
  }

  /** One pass: fans out every undispatched event. */
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
