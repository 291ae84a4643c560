import type { Mode } from '../../database/tenant-owned.entity';

/**
 * Queue and job names. Each job's payload carries `tenantId` and `mode`; jobs that must not run twice
 * get a deterministic jobId.
 */
export enum QueueName {
  PatientImports = 'patient-imports',
}

export enum PatientImportJobName {
  /** Process a bulk import; jobId = the import's id. */
  Import = 'import',
}

export interface PatientImportPayload {
  importId: string;
  tenantId: string;
  mode: Mode;
}
