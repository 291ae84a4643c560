import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { TenantOwned } from '../../../database/tenant-owned.entity';

/**
 * Who did what to which resource, when, from where, with what outcome. Append-only: no route changes or
 * deletes a row, and it never holds the resource's data.
 */
@Entity('audit_log')
@Index('IDX_AUDIT_LOG_TENANT_MODE_AT', ['tenantId', 'mode', 'at', 'id'])
@Index('IDX_AUDIT_LOG_TENANT_MODE_RESOURCE', ['tenantId', 'mode', 'resourceId', 'at'], { where: 'resource_id IS NOT NULL' })
@Index('IDX_AUDIT_LOG_TENANT_MODE_KEY', ['tenantId', 'mode', 'apiKeyId', 'at'])
export class AuditEntryEntity extends TenantOwned {
  @PrimaryColumn('uuid')
  id!: string;

  @Column({ type: 'timestamptz', precision: 3 })
  at!: Date;

  /** Null for a keyless request of a public route (a booking page). */
  @Column({ type: 'uuid', nullable: true })
  apiKeyId!: string | null;

  @Column({ type: 'varchar', length: 64 })
  action!: string;

  @Column({ type: 'varchar', length: 32 })
  resourceType!: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  resourceId!: string | null;

  @Column({ type: 'smallint' })
  status!: number;

  @Column({ type: 'varchar', length: 128 })
  requestId!: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip!: string | null;
}
