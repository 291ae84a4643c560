import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { JobOutbox } from '../../common/queue/job-outbox';
import { JobName } from '../../common/queue/queues';
import { clock } from '../../common/time/clock';
import type { DueDelivery } from './outbox-relay.repository';

export interface DeliveryJobOptions {
  /** Not before this many ms from now (a retry's backoff). */
  delayMs?: number;
  /** A retry by hand or a test event: its failure does not disable the endpoint. */
  manual?: boolean;
  /** Makes the jobId new (a manual retry: the attempt's plain id may still be taken by a finished job). */
  tag?: string;
}

/**
 * Delivery attempts, recorded in the transaction that makes them due (JobOutbox). A job names the attempt
 * it makes (`attempt`); its jobId is derived from it, so adding the same attempt twice is a no-op while the
 * first job exists, and a job that outlives its attempt finds the delivery moved on and does nothing (see
 * WebhookDeliveriesRepository.claim).
 */
@Injectable()
export class WebhookDeliveryJobs {
  constructor(private readonly outbox: JobOutbox) {}

  record(deliveries: readonly DueDelivery[], options: DeliveryJobOptions, tx: EntityManager): Promise<void> {
    const suffix = options.tag ? `_${options.tag}` : '';
    const runAt = options.delayMs ? new Date(clock.nowMs() + options.delayMs) : undefined;
    return this.outbox.addMany(
      deliveries.map((d) => {
        const attempt = d.attemptCount + 1;
        return {
          name: JobName.WebhookDelivery,
          payload: { deliveryId: d.id, tenantId: d.tenantId, mode: d.mode, attempt, manual: options.manual ?? false },
          options: { jobId: `${d.id}_${attempt}${suffix}`, runAt },
        };
      }),
      tx,
    );
  }
}
