import { Column } from 'typeorm';
import { InstantColumn } from '../../database/instant-column';
import { References } from '../../database/references';
import { TenantOwnedEntity } from '../../database/tenant-owned.entity';

/** The columns of a row that takes a span of a provider's time (an appointment, a hold). */
export abstract class ProviderSpan extends TenantOwnedEntity {
  @Column('uuid')
  providerId!: string;

  @References('ProviderEntity', 'provider_id')
  readonly providerFk?: never;

  @InstantColumn()
  startsAt!: Date;

  /** startsAt + duration, stored so that the constraints and the overlap queries index one range. */
  @InstantColumn()
  endsAt!: Date;

  /** Minutes. */
  @Column({ type: 'integer' })
  duration!: number;
}
