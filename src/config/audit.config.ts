import { BoolVar, IntVar } from './env';

/** The audit log's writer and the patient access log it carries. */
export class AuditEnv {
  /** How often buffered audit-log entries are written (and always at a graceful shutdown). */
  @IntVar(10, 600_000)
  AUDIT_FLUSH_INTERVAL_MS = 1_000;

  /** Benchmarks only (bench/audit.mjs measures the audit log's cost against it): false records nothing. */
  @BoolVar()
  AUDIT_LOG_ENABLED = true;

  /** Benchmarks only (BENCH_ACCESS_LOG=1 bench/audit.mjs): false records no patient ids with audit entries (no access log). */
  @BoolVar()
  PATIENT_ACCESS_LOG_ENABLED = true;
}

/** `patientAccessLog`: PATIENT_ACCESS_LOG_ENABLED. */
export interface AuditSettings {
  flushIntervalMs: number;
  enabled: boolean;
  patientAccessLog: boolean;
}

export function auditSettings(vars: AuditEnv): AuditSettings {
  return {
    flushIntervalMs: vars.AUDIT_FLUSH_INTERVAL_MS,
    enabled: vars.AUDIT_LOG_ENABLED,
    patientAccessLog: vars.PATIENT_ACCESS_LOG_ENABLED,
  };
}
