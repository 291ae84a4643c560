import { Check, Column, Entity, Index } from 'typeorm';
import { References } from '../../../../database/references';
import { TenantOwnedEntity } from '../../../../database/tenant-owned.entity';
import { InstantColumn } from '../../../../database/instant-column';

/** A span in which a provider takes no appointments (holiday, training …). */
@Entity('provider_time_off')
@Index('IDX_PROVIDER_TIME_OFF_TENANT_MODE_PROVIDER_START', ['tenantId', 'mode', 'providerId', 'startAt'])
@Check(`"end_at" > "start_at"`)
export class TimeOffEntity extends TenantOwnedEntity {
  @Column('uuid')
  providerId!: string;

  @References('ProviderEntity', 'provider_id', 'CASCADE')
  readonly providerFk?: never;

  @InstantColumn()
  startAt!: Date;

  @InstantColumn()
  endAt!: Date;

  @Column({ type: 'varchar', length: 500, nullable: true })
  reason!: string | null;
}
