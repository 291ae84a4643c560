import { Check, Entity, PrimaryColumn } from 'typeorm';
import type { Mode, TenantScope } from '../../../database/tenant-owned.entity';

/**
 * A patient whose data an audited answer carried: one row per (audit entry, patient), written with the
 * entry by the audit writer (docs/decisions/0002-patient-access-log.md). Partitioned by month on `at` like
 * audit_log, and dropped with it. The primary key is the access log's order: one patient, newest first.
 */
@Entity('audit_log_patients')
@Check(`"mode" IN ('test', 'live')`)
export class AuditPatientEntity implements TenantScope {
  @PrimaryColumn('uuid')
  tenantId!: string;

  @PrimaryColumn({ type: 'varchar', length: 4 })
  mode!: Mode;

  @PrimaryColumn('uuid')
  patientId!: string;

  @PrimaryColumn({ type: 'timestamptz', precision: 3 })
  at!: Date;

  /** The audit_log entry (with `tenantId`, `mode` and `at`, its primary key). */
  @PrimaryColumn('uuid')
  auditId!: string;
}
