import { Column, Entity, PrimaryColumn } from 'typeorm';
import { References } from '../../../database/references';
import { InstantColumn } from '../../../database/instant-column';

/** A tenant's test-mode clock: how far ahead of real time it runs. No row: real time. */
@Entity('test_clocks')
export class TestClockEntity {
  @PrimaryColumn('uuid')
  tenantId!: string;

  @References('TenantEntity', 'tenant_id', 'CASCADE')
  readonly tenantFk?: never;

  @Column({ type: 'bigint' })
  offsetMs!: string;

  @InstantColumn()
  updatedAt!: Date;
}
