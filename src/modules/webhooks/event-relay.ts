import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicTask } from '../../common/queue/periodic-task';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
import { OutboxRelayRepository } from './outbox-relay.repository';
import { WebhookDeliveryJobs } from './webhook-delivery-jobs';

/** Events fanned out per transaction. */
const BATCH = 200;
/** A pending delivery this late with no worker on it has lost its job. */
const OVERDUE_GRACE_MS = 60_000;

/**
 * Moves committed events from the outbox into delivery jobs, every EVENTS_RELAY_INTERVAL_MS, in every
 * worker process. Any number of relays may run at once: each event is fanned out by exactly one (see
 * OutboxRelayRepository.dispatch). Jobs are added after the commit; if the process dies in between, the
 * sweep of overdue deliveries adds them later, so nothing committed is lost.
 */
@Injectable()
export class EventRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EventRelay.name);
  private readonly task: PeriodicTask;

  constructor(
    private readonly config: AppConfig,
    private readonly transactions: Transactions,
    private readonly relay: OutboxRelayRepository,
    private readonly jobs: WebhookDeliveryJobs,
  ) {
    this.task = new PeriodicTask(
      config.webhooks.relayIntervalMs,
      () => this.runOnce(),
      (err) => this.logger.warn(`event relay pass failed: ${(err as Error).name}`),
    );
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** One pass: fans out every undispatched event, then re-enqueues overdue deliveries. */
  async runOnce(): Promise<void> {
    for (;;) {
      const { events, deliveries } = await this.transactions.run((tx) => this.relay.dispatch(BATCH, this.config.webhooks.maxAttempts, tx));
      await Promise.all(deliveries.map((d) => this.jobs.enqueue(d)));
      if (events < BATCH) break;
    }
    const overdue = await this.relay.overdue(OVERDUE_GRACE_MS, 500);
    // A new jobId per minute: the lost job's id may still be taken by a finished job.
    const tag = `s${Math.floor(Date.now() / 60_000)}`;
    await Promise.all(overdue.map((d) => this.jobs.enqueue(d, { tag })));
  }
}
