import { Injectable } from '@nestjs/common';
import { JobQueue } from '../../common/queue/job-queue';
import { JobName } from '../../common/queue/queues';
import type { DueDelivery } from './outbox-relay.repository';

/**
 * Enqueues delivery attempts. A job names the attempt it makes (`attempt`); its jobId is derived from it,
 * so adding the same attempt twice is a no-op while the first job exists, and a job that outlives its
 * attempt finds the delivery moved on and does nothing (see WebhookDeliveriesRepository.claim).
 */
@Injectable()
export class WebhookDeliveryJobs {
  constructor(private readonly jobs: JobQueue) {}

  async enqueue(delivery: DueDelivery, options: { delayMs?: number; manual?: boolean; tag?: string } = {}): Promise<void> {
    const attempt = delivery.attemptCount + 1;
    const suffix = options.tag ? `_${options.tag}` : '';
    await this.jobs.add(
      JobName.WebhookDelivery,
      { deliveryId: delivery.id, tenantId: delivery.tenantId, mode: delivery.mode, attempt, manual: options.manual ?? false },
      { jobId: `${delivery.id}_${attempt}${suffix}`, delay: options.delayMs },
    );
  }
}
