import { Column, Entity, PrimaryColumn } from 'typeorm';
import { InstantColumn } from '../../../database/instant-column';

/** A practice. Not tenant-scoped itself: it is the scope. */
@Entity('tenants')
export class TenantEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @InstantColumn()
  createdAt!: Date;
}
