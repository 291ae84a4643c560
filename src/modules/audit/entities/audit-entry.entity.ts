import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Mode, TenantScope } from '../../../database/tenant-owned.entity';

/**
 * Who did what to which resource, when, from where, with what outcome. Append-only: no route changes or
 * deletes a row, and it never holds the resource's data.
 *
 * Every audited request writes a row, so the table is shaped for cheap inserts (measured in
 * bench/README.md): the primary key is the order the log is read in (a tenant's mode, newest first), not a
 * separate index beside an id key, and there is no foreign key to `tenants` (its check locked the tenant's
 * row for every inserted entry; the tenant comes from a verified key, and a trail may outlive its tenant).
 *
 * Partitioned by month on `at` (audit_log_pYYYY_MM, and audit_log_default for anything outside them): the
 * workers create months ahead and drop whole months past AUDIT_RETENTION_MONTHS (AuditPartitions).
 */
@Entity('audit_log')
@Check(`"mode" IN ('test', 'live')`)
@Index('IDX_AUDIT_LOG_TENANT_MODE_RESOURCE', ['tenantId', 'mode', 'resourceId', 'at'], { where: 'resource_id IS NOT NULL' })
@Index('IDX_AUDIT_LOG_TENANT_MODE_KEY', ['tenantId', 'mode', 'apiKeyId', 'at', 'id'])
@Index('IDX_AUDIT_LOG_TENANT_MODE_ACTION', ['tenantId', 'mode', 'action', 'at', 'id'])
export class AuditEntryEntity implements TenantScope {
  @PrimaryColumn('uuid')
  tenantId!: string;

  @PrimaryColumn({ type: 'varchar', length: 4 })
  mode!: Mode;

  @PrimaryColumn({ type: 'timestamptz', precision: 3 })
  at!: Date;

  @PrimaryColumn('uuid')
  id!: string;

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
