import { Check, Column, Entity, Exclusion, PrimaryColumn } from 'typeorm';
import { TenantOwned } from '../../../../database/tenant-owned.entity';

/**
 * A span of a provider's time taken by an active appointment or hold (`id` is that row's). Written only by
 * the triggers on appointments and holds; the exclusion constraint is the one rule both kinds meet, so that
 * of racing bookings and holds of one provider's time exactly one wins.
 */
@Entity('provider_time_claims')
@Exclusion('EX_PROVIDER_TIME_CLAIMS', `USING gist (provider_id WITH =, during WITH &&)`)
@Check(`"kind" IN ('appointment', 'hold')`)
export class ProviderTimeClaimEntity extends TenantOwned {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 11 })
  kind!: 'appointment' | 'hold';

  @Column('uuid')
  providerId!: string;

  @Column({ type: 'tstzrange' })
  during!: string;
}
