import { IntVar } from './env';

/** What the workers' retention sweeps keep (docs/data-retention.md). */
export class RetentionEnv {
  /** Whole months of audit log kept past the current one; older monthly partitions are dropped (HIPAA: six years). */
  @IntVar(1, 1_200)
  AUDIT_RETENTION_MONTHS = 72;

  /** Days an event (with its webhook deliveries and attempts) is kept; at least 2, past a delivery's last retry. */
  @IntVar(2, 36_500)
  EVENTS_RETENTION_DAYS = 30;

  /** Days a sent email's rendered bodies are kept after sending; the message's metadata stays. */
  @IntVar(1, 36_500)
  EMAIL_BODY_RETENTION_DAYS = 30;
}

export interface RetentionSettings {
  /** AUDIT_RETENTION_MONTHS */
  auditMonths: number;
  /** EVENTS_RETENTION_DAYS */
  eventsDays: number;
  /** EMAIL_BODY_RETENTION_DAYS */
  emailBodyDays: number;
}

export function retentionSettings(vars: RetentionEnv): RetentionSettings {
  return {
    auditMonths: vars.AUDIT_RETENTION_MONTHS,
    eventsDays: vars.EVENTS_RETENTION_DAYS,
    emailBodyDays: vars.EMAIL_BODY_RETENTION_DAYS,
  };
}
