import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsISO8601, IsOptional, IsString, Length, Max, MaxLength, Min } from 'class-validator';
import { QueryInt } from '../../../common/http/requests/query';
import { PageQueryDto } from '../../../common/http/lists/pagination';
import { PATIENT_STATUSES, PATIENT_TYPES } from '../patient-rules';
import type { PatientStatus, PatientType } from '../patient-rules';

const toBoolean = ({ value }: { value: unknown }): unknown => (value === 'true' ? true : value === 'false' ? false : value);
const toList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean)
    : value;

/** GET /patients: a page, newest first, narrowed by every filter given (filters combine with AND). */
export class ListPatientsQueryDto extends PageQueryDto {
  /** Case-insensitive substring of the name, email, phone or joining code. */
  @ApiPropertyOptional({ example: 'lovelace' })
  @IsOptional()
  @IsString()
  @Length(1, 200)
  search?: string;

  /** Comma-separated; patients with any of these tags. */
  @ApiPropertyOptional({ type: String, example: 'vip,newsletter' })
  @IsOptional()
  @Transform(toList)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  tags?: string[];

  @ApiPropertyOptional({ enum: PATIENT_TYPES })
  @IsOptional()
  @IsIn(PATIENT_TYPES)
  patientType?: PatientType;

  @ApiPropertyOptional({ enum: PATIENT_STATUSES })
  @IsOptional()
  @IsIn(PATIENT_STATUSES)
  patientStatus?: PatientStatus;

  /** Case-insensitive exact match. */
  @IsOptional()
  @IsString()
  @MaxLength(50)
  gender?: string;

  /** Created at or after (date or date-time; a date means its start, UTC). */
  @ApiPropertyOptional({ format: 'date-time', example: '2026-01-01T00:00:00.000Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  dateFrom?: string;

  /** Created at or before (date or date-time; a date means its end, UTC). */
  @ApiPropertyOptional({ format: 'date-time', example: '2026-06-30T23:59:59.999Z' })
  @IsOptional()
  @IsISO8601({ strict: true })
  dateTo?: string;

  /** Age in whole years today (UTC), from dateOfBirth; patients without one are excluded. */
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(0)
  @Max(150)
  ageMin?: number;

  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(0)
  @Max(150)
  ageMax?: number;

  @ApiPropertyOptional({ type: Boolean })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  hasEmail?: boolean;

  @ApiPropertyOptional({ type: Boolean })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  hasPhone?: boolean;

  /** Case-insensitive exact match. */
  @ApiPropertyOptional({ format: 'email' })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  email?: string;

  @IsOptional()
  @IsString()
  @Length(1, 255)
  externalId?: string;

  /** Updated at or after this instant: what an integration syncing changes polls with. */
  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsISO8601({ strict: true })
  updatedSince?: string;
}
