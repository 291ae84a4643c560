import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { PageOf } from '../../../common/http/lists/pagination';
import { TimeRangePageQueryDto } from '../../../common/http/lists/time-range';
import { FormFieldOutDto } from './form.dto';

export const ANSWERS_EXAMPLE = { full_name: 'Ada Lovelace', email: 'ada@example.com', reason: 'Back pain', pain_level: 6, consent: true };

/** The body of POST /forms/{id}/submit. */
export class SubmitFormDto {
  /** The answers, by field id. Unknown ids are refused; each answer must fit its field. */
  @ApiProperty({ type: 'object', additionalProperties: true, example: ANSWERS_EXAMPLE })
  @IsObject()
  fields!: Record<string, unknown>;

  /** A patient of this tenant and mode to link the submission to; `null` links none. */
  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  patientId?: string | null;
}

export class SubmissionResultDto {
  @ApiProperty({ format: 'uuid' })
  submissionId!: string;

  @ApiProperty({ example: 'Form submitted' })
  message!: string;
}

/** A submission: the answers as stored (normalised: trimmed text, phones in E.164). */
export class SubmissionDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  formId!: string;

  /** The version of the form this submission answered. */
  @ApiProperty({ type: 'integer', example: 1 })
  formVersion!: number;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  patientId!: string | null;

  @ApiProperty({ type: 'object', additionalProperties: true, example: ANSWERS_EXAMPLE })
  fields!: Record<string, unknown>;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;
}

/** One submission with the field definitions of the version it answered, whatever the form says today. */
export class SubmissionDetailDto extends SubmissionDto {
  @ApiProperty({ type: [FormFieldOutDto] })
  formFields!: FormFieldOutDto[];
}

export class SubmissionListDto extends PageOf(SubmissionDto, 'submissions') {}

/** GET /forms/{id}/submissions: a page, newest first, narrowed to from..to (submission time) and a patient. */
export class ListSubmissionsQueryDto extends TimeRangePageQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a patient id' })
  patientId?: string;
}
