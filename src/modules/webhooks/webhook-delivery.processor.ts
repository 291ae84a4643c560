import { Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JobNotReadyError, OnJob } from '../../common/queue/job-handler';
import { JobName, WebhookDeliveryPayload } from '../../common/queue/queues';
import { clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { EventsService } from '../events';
import { retryDelayMs } from './retry-schedule';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryJobs } from './webhook-delivery-jobs.service';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { postWebhook } from './webhook-sender';
import { signedHeaders } from './webhook-signing';

/** How long past the attempt's own timeout a claim stays held (database writes, a slow event loop). */
const LEASE_MARGIN_MS = 30_000;

/**
 * Makes one attempt of one delivery: claims it, signs and POSTs the event (Standard Webhooks), records
 * the attempt, and either settles the delivery or schedules the next attempt with backoff. After the
 * last automatic attempt fails, the endpoint is disabled. Logs ids and statuses only.
 */
@Injectable()
export class WebhookDeliverer {
  private readonly logger = new Logger(WebhookDeliverer.name);

  constructor(
    private readonly config: AppConfig,
    private readonly transactions: Transactions,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly events: EventsService,
    private readonly jobs: WebhookDeliveryJobs,
  ) {}

  @OnJob(JobName.WebhookDelivery)
  async run(job: Job<WebhookDeliveryPayload>): Promise<void> {
    await this.attempt(job.data);
  }

  async attempt({ deliveryId, tenantId, mode, attempt, manual }: WebhookDeliveryPayload): Promise<void> {
    const scope: TenantScope = { tenantId, mode };
    const settings = this.config.webhooks;
    const claimed = await this.deliveries.claim(scope, deliveryId, attempt - 1, settings.timeoutMs + LEASE_MARGIN_MS);
    if (!claimed) {
      // Another run holds this attempt: it may be alive, or it died before recording (a database failure
      // after the POST). Waiting out its lease is what keeps the delivery from being left pending for good.
      const heldMs = await this.deliveries.heldForMs(scope, deliveryId, attempt - 1);
      if (heldMs !== null) throw new JobNotReadyError(Math.ceil(heldMs) + 100);
      return;
    }
    const [endpoint, secrets, event] = await Promise.all([
      this.endpoints.findById(scope, claimed.endpointId),
      this.endpoints.secrets(scope, claimed.endpointId),
      this.events.find(scope, claimed.eventId),
    ]);
    if (!endpoint || !secrets || !event) return; // deleted meanwhile: the delivery went with it
    if (!endpoint.enabled && !manual) {
      await this.deliveries.abandon(scope, deliveryId);
      return;
    }

    const startedAt = clock.now();
    const body = JSON.stringify({ type: event.type, timestamp: event.createdAt.toISOString(), data: event.payload });
    const keys = [secrets.secret];
    if (secrets.previousSecret && secrets.previousSecretExpiresAt && secrets.previousSecretExpiresAt > startedAt) {
      keys.push(secrets.previousSecret);
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'PracticeAPI-Webhooks/1.0',
      // webhook-timestamp: receivers check it against their own real clocks.
      ...signedHeaders(keys, event.id, new Date(), body),
    };
    const result = await postWebhook(endpoint.url, body, headers, {
      timeoutMs: settings.timeoutMs,
      allowPrivate: settings.allowPrivateUrls,
    });

    const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
    const exhausted = !ok && attempt >= claimed.maxAttempts;
    const delayMs = ok || exhausted ? null : retryDelayMs(attempt, settings.retryBaseMs);
    await this.transactions.run(async (tx) => {
      await this.deliveries.settle(
        scope,
        deliveryId,
        startedAt,
        result,
        {
          status: ok ? 'succeeded' : exhausted ? 'failed' : 'pending',
          attemptCount: attempt,
          nextAttemptAt: delayMs === null ? null : new Date(clock.nowMs() + delayMs),
          lastStatusCode: result.statusCode,
        },
        tx,
      );
      // A manual retry is one more try by hand: its failure does not switch the endpoint off.
      if (exhausted && !manual) await this.endpoints.disable(scope, endpoint.id, tx);
      if (delayMs !== null) await this.jobs.record([{ id: deliveryId, tenantId, mode, attemptCount: attempt }], { delayMs }, tx);
    });
    if (exhausted) {
      this.logger.warn(`delivery ${deliveryId} failed after ${attempt} attempts${manual ? '' : `; endpoint ${endpoint.id} disabled`}`);
    }
  }
}
