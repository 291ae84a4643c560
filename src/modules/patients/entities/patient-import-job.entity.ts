import { Check, Column, Entity } from 'typeorm';
import { TenantOwnedEntity } from '../../../database/tenant-owned.entity';
import { InstantColumn } from '../../../database/instant-column';

export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

export interface ImportRowError {
  index: number;
  field: string;
  message: string;
}

/**
 * A bulk import: the submitted rows and the progress through them. `processed` is advanced in the same
 * transaction as each batch's writes, so a retried job resumes exactly where the last commit left off.
 */
@Entity('patient_import_jobs')
@Check(`"status" IN ('queued', 'running', 'completed', 'failed')`)
export class PatientImportJobEntity extends TenantOwnedEntity {
  @Column({ type: 'varchar', length: 10 })
  status!: ImportStatus;

  @Column({ type: 'integer' })
  total!: number;

  @Column({ type: 'integer', default: 0 })
  processed!: number;

  @Column({ type: 'integer', default: 0 })
  created!: number;

  @Column({ type: 'integer', default: 0 })
  updated!: number;

  @Column({ type: 'integer', default: 0 })
  failed!: number;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  errors!: ImportRowError[];

  /** The submitted rows; only the worker reads them (select: false keeps them out of status reads). */
  @Column({ type: 'jsonb', select: false })
  rows!: unknown[];

  @Column({ type: 'uuid', nullable: true })
  createdByKeyId!: string | null;

  @InstantColumn({ nullable: true })
  completedAt!: Date | null;

  /** Why a failed import stopped, in words safe to show and log (never row data); null otherwise. */
  @Column({ type: 'text', nullable: true })
  failureReason!: string | null;

  /** `processed` when a worker last started (or resumed) the import: a resume that finds it unchanged made no progress. */
  @Column({ type: 'integer', nullable: true })
  startedAtRow!: number | null;

  /** Consecutive starts that found `processed` unchanged; too many fail the import instead of looping. */
  @Column({ type: 'integer', default: 0 })
  startsWithoutProgress!: number;
}
