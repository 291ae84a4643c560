import { DatabaseError } from 'pg';
import { QueryFailedError } from 'typeorm';

/** The integrity violations a module may turn into its own 409/404, by constraint name. */
export type ConstraintViolationKind = 'unique' | 'exclusion' | 'foreign_key';

export interface ConstraintViolation {
  kind: ConstraintViolationKind;
  /** The constraint's (or unique index's) name, as the migration named it. */
  constraint: string;
}

const KIND_OF_SQLSTATE: Record<string, ConstraintViolationKind> = {
  '23505': 'unique',
  '23P01': 'exclusion',
  '23503': 'foreign_key',
};

/**
 * Which constraint a failed statement violated, or undefined when the error is anything else (then it
 * stays a fault: rethrow it). Modules map the names they own to their exceptions, e.g.
 * `constraintViolation(err)?.constraint === 'UQ_PATIENTS_TENANT_MODE_EXTERNAL_ID'` → 409 external_id_taken.
 */
export function constraintViolation(error: unknown): ConstraintViolation | undefined {
  if (!(error instanceof QueryFailedError)) return undefined;
  const driver = (error as QueryFailedError & { driverError?: { code?: unknown; constraint?: unknown } }).driverError;
  const kind = typeof driver?.code === 'string' ? KIND_OF_SQLSTATE[driver.code] : undefined;
  if (!kind || typeof driver?.constraint !== 'string') return undefined;
  return { kind, constraint: driver.constraint };
}

/** True when the error is a violation of the named constraint (of any kind). */
export function violates(error: unknown, constraint: string): boolean {
  return constraintViolation(error)?.constraint === constraint;
}

/**
 * PostgreSQL's SQLSTATE of a failed statement, whether it came through TypeORM (QueryFailedError) or
 * straight from the driver (a COPY), else undefined.
 */
export function sqlStateOf(error: unknown): string | undefined {
  // A system error (ECONNREFUSED) has a code too: outside a QueryFailedError only the driver's own error counts.
  const code =
    error instanceof QueryFailedError
      ? (error as QueryFailedError & { driverError?: { code?: unknown } }).driverError?.code
      : error instanceof DatabaseError
        ? error.code
        : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * True when PostgreSQL aborted the statement's transaction to break a deadlock (40P01). Two transactions
 * inserting rows that conflict under one exclusion constraint can each wait for the other (both index
 * their row, then each checks and finds the other's uncommitted one); the one aborted may run again.
 */
export function isDeadlock(error: unknown): boolean {
  return sqlStateOf(error) === '40P01';
}

/**
 * Runs `work` (one whole transaction) again when PostgreSQL aborted it to break a deadlock, up to
 * `attempts` times in all; any other error, or the last deadlock, is rethrown as it was.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (!isDeadlock(err) || attempt >= attempts) throw err;
    }
  }
}
