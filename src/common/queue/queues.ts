/**
 * Queue and job names. Each job's payload carries `tenantId` and `mode`; jobs that must not run twice
 * get a deterministic jobId.
 */
export enum QueueName {
  PatientImports = 'patient-imports',
}
