import { Column, Entity, Index } from 'typeorm';
import { TenantOwnedEntity } from '../../../../database/tenant-owned.entity';
import type { WorkingInterval } from '../../availability/slots';

/** Someone patients book: their IANA timezone and weekly working hours (local wall-clock times). */
@Entity('providers')
@Index('IDX_PROVIDERS_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
export class ProviderEntity extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 200 })
  name!: string;

  @Column({ type: 'varchar', length: 320, nullable: true })
  email!: string | null;

  @Column({ type: 'varchar', length: 64 })
  timezone!: string;

  @Column({ type: 'jsonb' })
  workingHours!: WorkingInterval[];

  @Column({ type: 'boolean' })
  isActive!: boolean;
}
