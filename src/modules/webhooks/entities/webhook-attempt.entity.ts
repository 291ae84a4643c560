import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { References } from '../../../database/references';
import { TenantOwned } from '../../../database/tenant-owned.entity';
import { InstantColumn } from '../../../database/instant-column';

/** One attempt of a delivery: when, how long, the receiver's status and the first 1 KiB of its answer. */
@Entity('webhook_delivery_attempts')
@Index('UQ_WEBHOOK_ATTEMPTS_DELIVERY_ATTEMPT', ['deliveryId', 'attempt'], { unique: true })
export class WebhookAttemptEntity extends TenantOwned {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid')
  deliveryId!: string;

  @References('WebhookDeliveryEntity', 'delivery_id', 'CASCADE')
  readonly deliveryFk?: never;

  @Column({ type: 'integer' })
  attempt!: number;

  @InstantColumn()
  startedAt!: Date;

  @Column({ type: 'integer', nullable: true })
  statusCode!: number | null;

  @Column({ type: 'integer' })
  durationMs!: number;

  @Column({ type: 'text', nullable: true })
  responseBody!: string | null;

  @Column({ type: 'varchar', length: 200, nullable: true })
  error!: string | null;
}
