import { Column, Entity, Index } from 'typeorm';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';

/** A span in which a provider takes no appointments (holiday, training …). */
@Entity('provider_time_off')
@Index('IDX_PROVIDER_TIME_OFF_TENANT_MODE_PROVIDER_START', ['tenantId', 'mode', 'providerId', 'startAt'])
export class TimeOffEntity extends TenantOwnedEntity {
  @Column('uuid')
  providerId!: string;

  @Column({ type: 'timestamptz', precision: 3 })
  startAt!: Date;

  @Column({ type: 'timestamptz', precision: 3 })
  endAt!: Date;

  @Column({ type: 'varchar', length: 500, nullable: true })
  reason!: string | null;
}
