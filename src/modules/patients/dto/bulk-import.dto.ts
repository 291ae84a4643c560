import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsOptional } from 'class-validator';
import { IMPORT_STATUSES } from '../entities/patient-import-job.entity';
import type { ImportStatus } from '../entities/patient-import-job.entity';
import { CreatePatientDto } from './create-patient.dto';

export const MAX_IMPORT_ROWS = 10_000;

export class BulkImportDto {
  /**
   * 1–10,000 rows, each a POST /patients body. Rows are validated one by one: a bad row is reported in
   * the job's `errors` and the others are still written.
   */
  @ApiProperty({ type: [CreatePatientDto] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_IMPORT_ROWS)
  patients!: unknown[];
}

export class BulkImportQueryDto {
  /** Validate every row and write nothing; answers 200 with the full report at once. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  dryRun?: boolean;
}

export class ImportRowErrorDto {
  /** The row's position in `patients` (0-based). */
  @ApiProperty({ example: 3 })
  index!: number;

  @ApiProperty({ example: 'email' })
  field!: string;

  @ApiProperty({ example: 'must be an email address' })
  message!: string;
}

export class BulkImportAcceptedDto {
  @ApiProperty({ format: 'uuid' })
  jobId!: string;

  @ApiProperty({ enum: IMPORT_STATUSES, example: 'queued' })
  status!: ImportStatus;

  @ApiProperty({ example: 10000 })
  total!: number;
}

export class BulkImportJobDto {
  @ApiProperty({ format: 'uuid', nullable: true, type: String, description: 'null for a dry run, which creates no job' })
  jobId!: string | null;

  /** true for a dry run's report (nothing was written), false for an import job. */
  dryRun!: boolean;

  @ApiProperty({ enum: IMPORT_STATUSES })
  status!: ImportStatus;

  total!: number;

  /** Rows done so far (written or rejected). */
  processed!: number;

  /** Rows that created a patient (always 0 in a dry run: see `wouldCreate`). */
  created!: number;

  /** Rows whose externalId matched a patient, which they updated (always 0 in a dry run: see `wouldUpdate`). */
  updated!: number;

  /** Rows rejected; each has at least one entry in `errors`. */
  failed!: number;

  @ApiProperty({ type: [ImportRowErrorDto] })
  errors!: ImportRowErrorDto[];

  /**
   * Why a `failed` import stopped (null otherwise): for example that it could not be queued, that its
   * worker stopped repeatedly without progress, or the class of the error its last attempt met. Rows
   * written before the failure stay written; re-submitting the file updates them instead of duplicating.
   */
  @ApiProperty({ type: String, nullable: true, example: null })
  failureReason!: string | null;
}

/** `?dryRun=true`: what the import would do now, with nothing written. */
export class BulkImportDryRunDto extends BulkImportJobDto {
  /** Valid rows without a matching externalId: the patients the import would create. */
  wouldCreate!: number;

  /** Valid rows whose externalId matches a patient: the patients the import would update. */
  wouldUpdate!: number;
}
