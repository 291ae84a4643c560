import { Column, Entity, Index } from 'typeorm';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';
import { InstantColumn } from '../../../database/instant-column';

/**
 * A URL that receives the events it subscribes to. The secret signs deliveries, so it is kept (the API
 * shows it once); after a rotation the previous one also signs until `previousSecretExpiresAt`.
 * `enabled` turns false when a delivery has used its last attempt, and true again by PATCH.
 */
@Entity('webhook_endpoints')
@Index('IDX_WEBHOOK_ENDPOINTS_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
export class WebhookEndpointEntity extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 2048 })
  url!: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description!: string | null;

  @Column({ type: 'text', array: true })
  events!: string[];

  /** Encrypted (WebhookEndpointsRepository; AppCrypto, bound to this row). */
  @Column({ type: 'text', select: false })
  secret!: string;

  @Column({ type: 'text', nullable: true, select: false })
  previousSecret!: string | null;

  @InstantColumn({ nullable: true })
  previousSecretExpiresAt!: Date | null;

  @Column({ type: 'boolean' })
  enabled!: boolean;

  @InstantColumn({ nullable: true })
  disabledAt!: Date | null;
}
