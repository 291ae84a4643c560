import { Check, Column, Entity, Index } from 'typeorm';
import { References } from '../../../database/references';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';
import { InstantColumn } from '../../../database/instant-column';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event to one endpoint: unique per (event, endpoint), so relays running side by side cannot create
 * it twice. An attempt is claimed by number (`attemptCount` must be the one before it) under a lease, so
 * duplicated jobs cannot send it twice either.
 */
@Entity('webhook_deliveries')
@Check(`"status" IN ('pending', 'succeeded', 'failed')`)
@Index('UQ_WEBHOOK_DELIVERIES_EVENT_ENDPOINT', ['eventId', 'endpointId'], { unique: true })
@Index('IDX_WEBHOOK_DELIVERIES_ENDPOINT_CREATED', ['tenantId', 'mode', 'endpointId', 'createdAt', 'id'])
@Index('IDX_WEBHOOK_DELIVERIES_DUE', ['nextAttemptAt'], { where: "status = 'pending'" })
export class WebhookDeliveryEntity extends TenantOwnedEntity {
  @Column('uuid')
  endpointId!: string;

  @References('WebhookEndpointEntity', 'endpoint_id', 'CASCADE')
  readonly endpointFk?: never;

  @Column('uuid')
  eventId!: string;

  @References('EventEntity', 'event_id', 'CASCADE')
  readonly eventFk?: never;

  @Column({ type: 'varchar', length: 64 })
  eventType!: string;

  @Column({ type: 'varchar', length: 10 })
  status!: DeliveryStatus;

  @Column({ type: 'integer' })
  attemptCount!: number;

  @Column({ type: 'integer' })
  maxAttempts!: number;

  @InstantColumn({ nullable: true })
  nextAttemptAt!: Date | null;

  @InstantColumn({ nullable: true })
  leaseUntil!: Date | null;

  @Column({ type: 'integer', nullable: true })
  lastStatusCode!: number | null;
}
