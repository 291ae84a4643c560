import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageOf, PageQueryDto } from '../../../../common/http/lists/pagination';
import { WhenClearable, WhenPresent } from '../../../../common/http/requests/patch-members';
import { ENROLLMENT_STATUSES, MAX_DELAY_MINUTES, MAX_STEPS, SEQUENCE_STATUSES } from '../sequence-rules';
import type { EnrollmentStatus, SequenceStatus } from '../sequence-rules';

const NOT_BLANK = /\S/;

const TEMPLATE_ID = '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e6f';
export const STEPS_EXAMPLE = [
  { templateId: TEMPLATE_ID, delayMinutes: 0 },
  { templateId: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e70', delayMinutes: 4320 },
];

export class SequenceStepDto {
  /** An email template of the caller's tenant and mode (else 400 naming `steps.<i>.templateId`). */
  @ApiProperty({ format: 'uuid', example: TEMPLATE_ID })
  @IsUUID('all', { message: 'must be an email template id' })
  templateId!: string;

  /** Minutes after the previous step; the first step's after the enrolment. 0 sends at once. */
  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_DELAY_MINUTES, example: 4320 })
  @IsInt()
  @Min(0)
  @Max(MAX_DELAY_MINUTES)
  delayMinutes!: number;
}

/** The body of POST /emails/sequences. */
export class CreateSequenceDto {
  @ApiProperty({ example: 'New patient welcome', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name!: string;

  @ApiPropertyOptional({ example: 'Three emails over the first week after registration.', maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  /** At most 50; may be empty while the sequence is a draft. */
  @ApiPropertyOptional({ type: [SequenceStepDto], example: STEPS_EXAMPLE, default: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_STEPS)
  @IsObject({ each: true, message: 'each step must be an object' })
  @ValidateNested({ each: true })
  @Type(() => SequenceStepDto)
  steps?: SequenceStepDto[];
}

/** The body of PATCH /emails/sequences/{id}: omitted members are unchanged. */
export class UpdateSequenceDto {
  @ApiPropertyOptional({ example: 'New patient welcome (2027)', minLength: 1, maxLength: 200 })
  @WhenPresent()
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name?: string;

  /** `null` clears it. */
  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 2000 })
  @WhenClearable()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  /** draft → active ⇄ paused, any → archived (final); another change is 409 invalid_transition. */
  @ApiPropertyOptional({ enum: SEQUENCE_STATUSES, example: 'active' })
  @WhenPresent()
  @IsIn(SEQUENCE_STATUSES)
  status?: SequenceStatus;

  /** Replaces the steps; only while draft or paused (or in the PATCH that pauses), else 409 invalid_transition. */
  @ApiPropertyOptional({ type: [SequenceStepDto], example: STEPS_EXAMPLE })
  @WhenPresent()
  @IsArray()
  @ArrayMaxSize(MAX_STEPS)
  @IsObject({ each: true, message: 'each step must be an object' })
  @ValidateNested({ each: true })
  @Type(() => SequenceStepDto)
  steps?: SequenceStepDto[];
}

export class SequenceDto {
  @ApiProperty({ format: 'uuid', example: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e71' })
  id!: string;

  @ApiProperty({ example: 'New patient welcome' })
  name!: string;

  @ApiProperty({ nullable: true, type: String, example: 'Three emails over the first week after registration.' })
  description!: string | null;

  @ApiProperty({ enum: SEQUENCE_STATUSES, example: 'draft' })
  status!: SequenceStatus;

  @ApiProperty({ type: [SequenceStepDto], example: STEPS_EXAMPLE })
  steps!: SequenceStepDto[];

  /** Patients ever enrolled (re-enrolling counts nothing). */
  @ApiProperty({ type: 'integer', example: 0 })
  enrollmentCount!: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T09:30:00.000Z' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T09:30:00.000Z' })
  updatedAt!: string;
}

export class SequenceCreatedDto {
  @ApiProperty({ example: 'Sequence created' })
  message!: 'Sequence created';

  @ApiProperty({ type: SequenceDto })
  sequence!: SequenceDto;
}

export class SequenceListDto extends PageOf(SequenceDto, 'sequences') {}

/** GET /emails/sequences: a page, newest first. */
export class ListSequencesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: SEQUENCE_STATUSES })
  @IsOptional()
  @IsIn(SEQUENCE_STATUSES)
  status?: SequenceStatus;
}

/** The body of POST /emails/sequences/{id}/enroll. */
export class EnrollDto {
  /** 1–1,000 patients of the caller's tenant and mode (an unknown id is 400 naming `patientIds.<i>`). */
  @ApiProperty({ type: [String], format: 'uuid', minItems: 1, maxItems: 1000, example: ['0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e72'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @IsUUID('all', { each: true, message: 'each must be a patient id' })
  patientIds!: string[];
}

export class EnrollResultDto {
  /** Patients enrolled now. */
  @ApiProperty({ type: 'integer', example: 2 })
  enrolled!: number;

  /** Patients enrolled before (in any status): enrolling again is a no-op. */
  @ApiProperty({ type: 'integer', example: 1 })
  alreadyEnrolled!: number;

  /** Patients without an email address, or who opted out of email. */
  @ApiProperty({ type: 'integer', example: 0 })
  skipped!: number;
}

export class EnrollmentDto {
  @ApiProperty({ format: 'uuid', example: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e73' })
  id!: string;

  @ApiProperty({ format: 'uuid', example: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e71' })
  sequenceId!: string;

  @ApiProperty({ format: 'uuid', example: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e72' })
  patientId!: string;

  /** active (walking the steps), completed, cancelled (the sequence was archived, or the patient has no email) or failed. */
  @ApiProperty({ enum: ENROLLMENT_STATUSES, example: 'active' })
  status!: EnrollmentStatus;

  /** The step that runs next (0-based); the number of steps once completed. */
  @ApiProperty({ type: 'integer', example: 1 })
  currentStep!: number;

  /** When the current step is due (it waits longer while the sequence is paused); null once ended. */
  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: '2026-11-24T09:30:00.000Z' })
  nextStepAt!: string | null;

  /** The message the last step queued (see GET /emails/messages/{id}). */
  @ApiProperty({ format: 'uuid', nullable: true, type: String, example: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e74' })
  lastMessageId!: string | null;

  @ApiProperty({ nullable: true, type: String, example: null })
  endedReason!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: null })
  endedAt!: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T09:30:00.000Z' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T09:30:00.000Z' })
  updatedAt!: string;
}

export class EnrollmentListDto extends PageOf(EnrollmentDto, 'enrollments') {}

/** GET /emails/sequences/{id}/enrollments: a page, newest first. */
export class ListEnrollmentsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ENROLLMENT_STATUSES })
  @IsOptional()
  @IsIn(ENROLLMENT_STATUSES)
  status?: EnrollmentStatus;
}
