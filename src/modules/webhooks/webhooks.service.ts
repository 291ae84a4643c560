import { Injectable } from '@nestjs/common';
import { PageRequest } from '../../common/http/lists/pagination';
import { uuidv7 } from '../../common/ids';
import { ResourceNotFoundProblem, ValidationFailedException } from '../../common/http/errors/problem';
import { clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { ReadReplicas } from '../../database/read-replicas';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { TEST_EVENT_TYPE, type EventType, EventsService } from '../events';
import { WebhookDeliveryDto, WebhookDeliveryListDto } from './dto/delivery.dto';
import { CreateWebhookDto, UpdateWebhookDto, WebhookDto, WebhookListDto, WebhookWithSecretDto } from './dto/webhook.dto';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { webhookUrlProblem } from './url-safety';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDeliveryJobs } from './webhook-delivery-jobs.service';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';
import { newWebhookSecret } from './webhook-signing';

/** How long the secret replaced by a rotation still signs deliveries, so receivers can switch over. */
const ROTATION_GRACE_MS = 24 * 3_600_000;

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

@Injectable()
export class WebhooksService {
  constructor(
    private readonly config: AppConfig,
    private readonly transactions: Transactions,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly events: EventsService,
    private readonly jobs: WebhookDeliveryJobs,
    private readonly replicas: ReadReplicas,
  ) {}

  async create(scope: TenantScope, dto: CreateWebhookDto): Promise<WebhookWithSecretDto> {
    await this.checkUrl(dto.url);
    const secret = newWebhookSecret();
    const row = await this.endpoints.insertWithSecret(scope, {
      url: dto.url,
      events: dto.events,
      description: dto.description?.trim() || null,
      secret,
      previousSecret: null,
      previousSecretExpiresAt: null,
      enabled: true,
      disabledAt: null,
    });
    return { ...toDto(row), secret };
  }

  async list(scope: TenantScope, page: PageRequest): Promise<WebhookListDto> {
    const result = await this.replicas.read((db) => this.endpoints.paginate(this.endpoints.query(scope, 'w', db), page));
    return { webhooks: result.items.map(toDto), nextCursor: result.nextCursor };
  }

  async get(scope: TenantScope, id: string): Promise<WebhookDto> {
    return toDto(await this.endpoint(scope, id));
  }

  async update(scope: TenantScope, id: string, dto: UpdateWebhookDto): Promise<WebhookDto> {
    const current = await this.endpoint(scope, id);
    if (dto.url !== undefined) await this.checkUrl(dto.url);
    const now = clock.now();
    const enabled = dto.enabled ?? current.enabled;
    await this.endpoints.update(
      scope,
      { id },
      {
        url: dto.url,
        events: dto.events,
        description: dto.description === undefined ? undefined : dto.description?.trim() || null,
        enabled,
        disabledAt: enabled ? null : (current.disabledAt ?? now),
        updatedAt: now,
      },
    );
    return toDto(await this.endpoint(scope, id));
  }

  async delete(scope: TenantScope, id: string): Promise<void> {
    if (!(await this.endpoints.delete(scope, { id }))) throw new ResourceNotFoundProblem('The webhook');
  }

  async rotateSecret(scope: TenantScope, id: string): Promise<WebhookWithSecretDto> {
    const secret = newWebhookSecret();
    const now = clock.now();
    const updated = await this.transactions.run(async (tx) => {
      const current = await this.endpoints.secrets(scope, id, tx);
      if (!current) return false;
      await this.endpoints.setSecrets(
        scope,
        id,
        { secret, previousSecret: current.secret, previousSecretExpiresAt: new Date(now.getTime() + ROTATION_GRACE_MS) },
        now,
        tx,
      );
      return true;
    });
    if (!updated) throw new ResourceNotFoundProblem('The webhook');
    return { ...toDto(await this.endpoint(scope, id)), secret };
  }

  /** Sends a `webhook.test` event to this endpoint only: one attempt, now, whether or not it is enabled. */
  async sendTest(scope: TenantScope, id: string): Promise<WebhookDeliveryDto> {
    const endpoint = await this.endpoint(scope, id);
    const delivery = await this.transactions.run(async (tx) => {
      const eventId = await this.events.recordUndispatchable(
        scope,
        TEST_EVENT_TYPE,
        {
          webhookId: endpoint.id,
          message: 'A test event sent from the API',
        },
        tx,
      );
      const inserted = await this.deliveries.insert(
        scope,
        {
          endpointId: endpoint.id,
          eventId,
          eventType: TEST_EVENT_TYPE,
          status: 'pending',
          attemptCount: 0,
          maxAttempts: 1,
          nextAttemptAt: clock.now(),
          leaseUntil: null,
          lastStatusCode: null,
        },
        tx,
      );
      await this.jobs.record([{ ...inserted, attemptCount: 0 }], { manual: true }, tx);
      return inserted;
    });
    return toDeliveryDto(delivery, []);
  }

  async deliveriesOf(scope: TenantScope, id: string, page: PageRequest): Promise<WebhookDeliveryListDto> {
    await this.endpoint(scope, id);
    const { result, attempts } = await this.replicas.read(async (db) => {
      const result = await this.deliveries.listForEndpoint(scope, id, page, db);
      const ids = result.items.map((d) => d.id);
      return { result, attempts: await this.deliveries.attemptsOf(scope, ids, db) };
    });
    return { deliveries: result.items.map((d) => toDeliveryDto(d, attempts)), nextCursor: result.nextCursor };
  }

  /** One more attempt of a delivery, now (202: the attempt runs on the queue). */
  async retry(scope: TenantScope, id: string, deliveryId: string): Promise<WebhookDeliveryDto> {
    await this.endpoint(scope, id);
    const delivery = await this.deliveries.findOne(scope, { id: deliveryId, endpointId: id });
    if (!delivery) throw new ResourceNotFoundProblem('The delivery');
    await this.transactions.run(async (tx) => {
      const reopened = await this.deliveries.reopen(scope, deliveryId, tx);
      if (!reopened) throw new ResourceNotFoundProblem('The delivery');
      await this.jobs.record(
        [{ id: deliveryId, ...scope, attemptCount: reopened.attemptCount }],
        { manual: true, tag: `m${uuidv7()}` },
        tx,
      );
    });
    const fresh = (await this.deliveries.findById(scope, deliveryId))!;
    return toDeliveryDto(fresh, await this.deliveries.attemptsOf(scope, [deliveryId]));
  }

  private async endpoint(scope: TenantScope, id: string): Promise<WebhookEndpointEntity> {
    const row = await this.endpoints.findById(scope, id);
    if (!row) throw new ResourceNotFoundProblem('The webhook');
    return row;
  }

  private async checkUrl(url: string): Promise<void> {
    const problem = await webhookUrlProblem(url, this.config.webhooks.allowPrivateUrls);
    if (problem) throw new ValidationFailedException([{ field: 'url', message: problem }]);
  }
}

function toDto(row: WebhookEndpointEntity): WebhookDto {
  return {
    id: row.id,
    url: row.url,
    events: row.events as EventType[],
    description: row.description,
    enabled: row.enabled,
    disabledAt: iso(row.disabledAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function toDeliveryDto(row: WebhookDeliveryEntity, attempts: WebhookAttemptEntity[]): WebhookDeliveryDto {
  return {
    id: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    nextAttemptAt: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
    attempts: attempts
      .filter((a) => a.deliveryId === row.id)
      .map((a) => ({
        attempt: a.attempt,
        startedAt: a.startedAt.toISOString(),
        statusCode: a.statusCode,
        durationMs: a.durationMs,
        responseBody: a.responseBody,
        error: a.error,
      })),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
