import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TenantOwned } from '../../../database/tenant-owned.entity';
import { InstantColumn } from '../../../database/instant-column';

/**
 * One event of the outbox, written in the transaction of the change it reports (never for a rolled-back
 * one). `dispatchedAt` is set when the relay has created its webhook deliveries. The id is a UUIDv7, so
 * ids sort by time.
 */
@Entity('events')
@Index('IDX_EVENTS_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
@Index('IDX_EVENTS_TENANT_MODE_TYPE_CREATED', ['tenantId', 'mode', 'type', 'createdAt', 'id'])
@Index('IDX_EVENTS_UNDISPATCHED', ['id'], { where: 'dispatched_at IS NULL' })
// BRIN (created_at): the retention sweep's scan for events past EVENTS_RETENTION_DAYS, across tenants.
@Index('IDX_EVENTS_CREATED_BRIN', { synchronize: false })
export class EventEntity extends TenantOwned {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 64 })
  type!: string;

  /** The resource as the API returns it. */
  @Column({ type: 'jsonb' })
  payload!: Record<string, unknown>;

  @InstantColumn()
  createdAt!: Date;

  @InstantColumn({ nullable: true })
  dispatchedAt!: Date | null;
}
