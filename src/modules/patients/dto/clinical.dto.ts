import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsISO8601, IsOptional, IsString, IsUUID, Length, MaxLength } from 'class-validator';
import { IsCalendarDate } from '../patient-validators';

/** FHIR R4 Condition.clinicalStatus. */
export const CONDITION_STATUSES = ['active', 'recurrence', 'relapse', 'inactive', 'remission', 'resolved'] as const;
/** FHIR R4 MedicationStatement.status. */
export const MEDICATION_STATUSES = [
  'active',
  'completed',
  'entered-in-error',
  'intended',
  'stopped',
  'on-hold',
  'unknown',
  'not-taken',
] as const;

export class CreateConditionDto {
  /** A code in `codeSystem`, e.g. SNOMED CT 44054006. */
  @ApiPropertyOptional({ example: '44054006' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  code?: string;

  @ApiPropertyOptional({ example: 'http://snomed.info/sct' })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  codeSystem?: string;

  @ApiProperty({ example: 'Diabetes mellitus type 2' })
  @IsString()
  @Length(1, 500)
  display!: string;

  @ApiPropertyOptional({ enum: CONDITION_STATUSES, default: 'active' })
  @IsOptional()
  @IsIn(CONDITION_STATUSES)
  clinicalStatus?: string;

  @ApiPropertyOptional({ format: 'date', example: '2019-04-02' })
  @IsOptional()
  @IsCalendarDate()
  onsetDate?: string;

  /** When it was recorded; default now. */
  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsISO8601({ strict: true })
  recordedAt?: string;
}

export class ConditionDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ nullable: true, type: String })
  code!: string | null;

  @ApiProperty({ nullable: true, type: String })
  codeSystem!: string | null;

  display!: string;

  @ApiProperty({ enum: CONDITION_STATUSES })
  clinicalStatus!: string;

  @ApiProperty({ format: 'date', nullable: true, type: String })
  onsetDate!: string | null;

  @ApiProperty({ format: 'date-time' })
  recordedAt!: string;
}

export class CreateMedicationDto {
  @ApiProperty({ example: 'Metformin 500 mg tablets' })
  @IsString()
  @Length(1, 500)
  name!: string;

  /** E.g. an RxNorm or dm+d code. */
  @ApiPropertyOptional({ example: '860975' })
  @IsOptional()
  @IsString()
  @Length(1, 64)
  code?: string;

  @ApiPropertyOptional({ example: '500 mg twice daily' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  dosage?: string;

  @ApiPropertyOptional({ enum: MEDICATION_STATUSES, default: 'active' })
  @IsOptional()
  @IsIn(MEDICATION_STATUSES)
  status?: string;

  @ApiPropertyOptional({ format: 'date' })
  @IsOptional()
  @IsCalendarDate()
  startDate?: string;

  /** On or after startDate. */
  @ApiPropertyOptional({ format: 'date' })
  @IsOptional()
  @IsCalendarDate()
  endDate?: string;
}

export class MedicationDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  name!: string;

  @ApiProperty({ nullable: true, type: String })
  code!: string | null;

  @ApiProperty({ nullable: true, type: String })
  dosage!: string | null;

  @ApiProperty({ enum: MEDICATION_STATUSES })
  status!: string;

  @ApiProperty({ format: 'date', nullable: true, type: String })
  startDate!: string | null;

  @ApiProperty({ format: 'date', nullable: true, type: String })
  endDate!: string | null;
}

export class CreateEncounterDto {
  /** The appointment this encounter completes, if any: one of this patient's; one encounter per appointment (409 otherwise). */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  appointmentId?: string;

  /** A provider of your tenant and mode; with appointmentId, that appointment's provider. */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  providerId?: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T09:30:00.000Z' })
  @IsISO8601({ strict: true })
  datetime!: string;

  @ApiPropertyOptional({ example: 'consultation' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  type?: string;

  @ApiPropertyOptional({ example: 'Annual review' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  reason?: string;

  @IsOptional()
  @IsString()
  @MaxLength(20000)
  notes?: string;
}

export class EncounterDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  appointmentId!: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  providerId!: string | null;

  @ApiProperty({ format: 'date-time' })
  datetime!: string;

  @ApiProperty({ nullable: true, type: String })
  type!: string | null;

  @ApiProperty({ nullable: true, type: String })
  reason!: string | null;

  @ApiProperty({ nullable: true, type: String })
  notes!: string | null;
}

export class ClinicalDataDto {
  @ApiProperty({ type: [ConditionDto], description: 'Oldest first by recordedAt' })
  conditions!: ConditionDto[];

  @ApiProperty({ type: [MedicationDto], description: 'Oldest first by creation' })
  medications!: MedicationDto[];

  @ApiProperty({ type: [EncounterDto], description: 'Oldest first by datetime' })
  encounters!: EncounterDto[];
}
