import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { uuidv7 } from '../../common/ids';
import { EntityManager, In, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/lists/pagination';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { WebhookAttemptEntity } from './entities/webhook-attempt.entity';
import { DeliveryStatus, WebhookDeliveryEntity } from './entities/webhook-delivery.entity';
import { AttemptResult } from './webhook-sender';

/** A delivery claimed for one attempt. */
export interface ClaimedDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  maxAttempts: number;
}

/** Where a delivery stands after an attempt. */
export interface DeliveryOutcome {
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
}

@Injectable()
export class WebhookDeliveriesRepository extends TenantEntityRepository<WebhookDeliveryEntity> {
  constructor(
    @InjectRepository(WebhookDeliveryEntity) repository: Repository<WebhookDeliveryEntity>,
    @InjectRepository(WebhookAttemptEntity) private readonly attempts: Repository<WebhookAttemptEntity>,
  ) {
    super(repository);
  }

  listForEndpoint(scope: TenantScope, endpointId: string, page: PageRequest, tx?: EntityManager): Promise<Page<WebhookDeliveryEntity>> {
    return this.paginate(this.query(scope, 'd', tx).andWhere('d.endpoint_id = :endpointId', { endpointId }), page);
  }

  /** The attempts of these deliveries, oldest first. */
  attemptsOf(scope: TenantScope, deliveryIds: string[], tx?: EntityManager): Promise<WebhookAttemptEntity[]> {
    if (!deliveryIds.length) return Promise.resolve([]);
    return (tx ? tx.getRepository(WebhookAttemptEntity) : this.attempts).find({
      where: { tenantId: scope.tenantId, mode: scope.mode, deliveryId: In(deliveryIds) },
      order: { deliveryId: 'ASC', attempt: 'ASC' },
    });
  }

  /**
   * Takes attempt number `afterAttempts + 1` of a pending delivery, for `leaseMs`: null when the delivery
   * is settled, that attempt was already made, or another worker holds it. This is what makes a
   * duplicated or re-enqueued job harmless.
   */
  async claim(scope: TenantScope, id: string, afterAttempts: number, leaseMs: number): Promise<ClaimedDelivery | null> {
    // A lease is a lock held for a duration, so the database's own clock times it, not the business clock.
    const rows = await this.sql<[ClaimedDelivery[], number]>(
      scope,
      `UPDATE webhook_deliveries SET lease_until = now() + make_interval(secs => $5::double precision / 1000)
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status = 'pending' AND attempt_count = $4
          AND (lease_until IS NULL OR lease_until < now())
        RETURNING id, endpoint_id AS "endpointId", event_id AS "eventId", max_attempts AS "maxAttempts"`,
      [id, afterAttempts, leaseMs],
    );
    return rows[0][0] ?? null;
  }

  /**
   * How long another run's lease on this attempt still holds (null when the attempt is no longer due:
   * made, settled or gone). A run that died after its POST holds the lease until it lapses.
   */
  async heldForMs(scope: TenantScope, id: string, afterAttempts: number): Promise<number | null> {
    const rows = await this.sql<{ ms: number }[]>(
      scope,
      `SELECT GREATEST(0, EXTRACT(EPOCH FROM lease_until - now()) * 1000)::float8 AS ms FROM webhook_deliveries
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status = 'pending' AND attempt_count = $4 AND lease_until >= now()`,
      [id, afterAttempts],
    );
    return rows[0]?.ms ?? null;
  }

  /** Records an attempt and where the delivery now stands, releasing the lease. */
  async settle(
    scope: TenantScope,
    id: string,
    startedAt: Date,
    result: AttemptResult,
    outcome: DeliveryOutcome,
    tx: EntityManager,
  ): Promise<void> {
    await tx.getRepository(WebhookAttemptEntity).insert({
      id: uuidv7(),
      tenantId: scope.tenantId,
      mode: scope.mode,
      deliveryId: id,
      attempt: outcome.attemptCount,
      startedAt,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      responseBody: result.responseBody,
      error: result.error?.slice(0, 200) ?? null,
    });
    await this.update(scope, { id }, { ...outcome, leaseUntil: null, updatedAt: clock.now() }, tx);
  }

  /** Gives up on a delivery without an attempt (its endpoint was disabled meanwhile). */
  async abandon(scope: TenantScope, id: string): Promise<void> {
    await this.update(scope, { id }, { status: 'failed', nextAttemptAt: null, leaseUntil: null, updatedAt: clock.now() });
  }

  /**
   * Opens a delivery for one more attempt, now (a manual retry). A settled delivery gets exactly one more
   * attempt; a pending one keeps its schedule, its next attempt simply comes now.
   */
  async reopen(scope: TenantScope, id: string, tx?: EntityManager): Promise<WebhookDeliveryEntity | null> {
    const rows = await this.sql<[WebhookDeliveryEntity[], number]>(
      scope,
      `UPDATE webhook_deliveries
          SET max_attempts = CASE WHEN status = 'pending' THEN max_attempts ELSE attempt_count + 1 END,
              status = 'pending', next_attempt_at = $4, updated_at = $4
        WHERE tenant_id = $1 AND mode = $2 AND id = $3
        RETURNING id, attempt_count AS "attemptCount"`,
      [id, clock.now()],
      tx,
    );
    return rows[0][0] ?? null;
  }
}
