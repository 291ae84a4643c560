import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A practice. Not tenant-scoped itself: it is the scope. */
@Entity('tenants')
export class TenantEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'timestamptz', precision: 3 })
  createdAt!: Date;
}
