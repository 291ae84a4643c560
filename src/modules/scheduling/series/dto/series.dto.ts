import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { localExampleFromNow } from '../../../../common/http/openapi/example-dates';
import { PageOf } from '../../../../common/http/lists/pagination';
import { SlotDto } from '../../availability/dto/availability.dto';
import { BookAppointmentDto, ListAppointmentsQueryDto } from '../../appointments/dto/appointment.dto';
import { IsIanaTimeZone } from '../../providers/time-zones';
import { APPOINTMENT_STATUSES } from '../../appointments/transitions';
import type { AppointmentStatus } from '../../appointments/transitions';
import { CONFLICT_REASONS, SERIES_STATUSES } from '../entities/appointment-series.entity';
import type { ConflictReason, SeriesStatus } from '../entities/appointment-series.entity';
import { MAX_OCCURRENCES } from '../expansion';

export const ON_CONFLICT = ['reject', 'skip'] as const;
export type OnConflict = (typeof ON_CONFLICT)[number];
export const SERIES_SCOPES = ['following', 'all'] as const;
export type SeriesScope = (typeof SERIES_SCOPES)[number];

const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;
const LOCAL_DATE_TIME_MESSAGE = 'must be a local date-time without an offset, YYYY-MM-DDTHH:MM';

/** A booking's references, length and policy override as POST /scheduling/book takes them. */
export class CreateSeriesDto extends PickType(BookAppointmentDto, [
  'patientId',
  'providerId',
  'appointmentTypeId',
  'duration',
  'overridePolicies',
] as const) {
  /** The first occurrence, as a wall time in `timezone` (no offset): every occurrence keeps this time of day. */
  @ApiProperty({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}$', ...localExampleFromNow(35, '09:00') })
  @IsString()
  @Matches(LOCAL_DATE_TIME, { message: LOCAL_DATE_TIME_MESSAGE })
  start!: string;

  /** IANA time zone the start, the rule and exdates are read in; default the provider's. */
  @ApiPropertyOptional({ example: 'America/New_York' })
  @IsOptional()
  @IsIanaTimeZone()
  timezone?: string;

  /**
   * RFC 5545 RRULE subset: FREQ=DAILY|WEEKLY|MONTHLY, INTERVAL, BYDAY (weekly: MO,WE; monthly: 2TU, -1FR),
   * BYMONTHDAY (monthly), and exactly one of COUNT or UNTIL; at most 52 occurrences within 366 days.
   */
  @ApiProperty({ example: 'FREQ=WEEKLY;COUNT=4', maxLength: 500 })
  @IsString()
  @MaxLength(500)
  rrule!: string;

  /** Occurrences left out, as local date-times of the rule (COUNT counts them). */
  @ApiPropertyOptional({ type: [String], example: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_OCCURRENCES)
  @IsString({ each: true })
  @Matches(LOCAL_DATE_TIME, { each: true, message: LOCAL_DATE_TIME_MESSAGE })
  exdates?: string[];

  /** `reject` (default): one occurrence that cannot be booked refuses the series (409 series_conflicts). `skip`: book the rest. */
  @ApiPropertyOptional({ enum: ON_CONFLICT, default: 'reject' })
  @IsOptional()
  @IsIn(ON_CONFLICT)
  onConflict?: OnConflict;

  @ApiPropertyOptional({ example: 'Weekly physiotherapy' })
  @IsOptional()
  @IsString()
  @MaxLength(10000)
  notes?: string;

  /** One booking notice to the patient, for the first booked occurrence (by its type's notice channels); none by default. */
  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  notifyPatient?: boolean;
}

export class CreateSeriesQueryDto {
  /** true: check every occurrence and answer 200 with the series as it would be and its conflicts; nothing is written. */
  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  dryRun?: boolean;
}

export class ListSeriesQueryDto extends PickType(ListAppointmentsQueryDto, ['limit', 'cursor', 'patientId', 'providerId'] as const) {}

/** What a series edit changes in each occurrence in scope (at least one member). */
export class SeriesChangesDto {
  /** New wall time (`HH:MM`, in the series' timezone) on each occurrence's own local date. */
  @ApiPropertyOptional({ example: '09:30' })
  @IsOptional()
  @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'must be a time of day, HH:MM' })
  localTime?: string;

  @ApiPropertyOptional({ minimum: 5, maximum: 480, example: 30 })
  @IsOptional()
  @IsInt()
  @Min(5)
  @Max(480)
  durationMinutes?: number;

  /** Another provider of this tenant and mode (who offers the series' type). */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  providerId?: string;
}

export class SeriesScopeDto {
  /** `all` occurrences, or those `following` (and including) the occurrence `from` names. */
  @ApiProperty({ enum: SERIES_SCOPES, example: 'all' })
  @IsIn(SERIES_SCOPES)
  scope!: SeriesScope;

  /** With scope `following`: the appointmentId of the first occurrence in scope. */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  from?: string;
}

export class UpdateSeriesDto extends SeriesScopeDto {
  @ApiProperty({ type: SeriesChangesDto })
  @IsObject()
  @ValidateNested()
  @Type(() => SeriesChangesDto)
  changes!: SeriesChangesDto;

  /** As on create: `reject` (default) refuses the edit if one occurrence cannot move; `skip` leaves that one where it is. */
  @ApiPropertyOptional({ enum: ON_CONFLICT, default: 'reject' })
  @IsOptional()
  @IsIn(ON_CONFLICT)
  onConflict?: OnConflict;
}

export class CancelSeriesDto extends SeriesScopeDto {}

export class SeriesOccurrenceDto {
  /** Its position in the rule, from 0 (exdates keep their numbers). */
  @ApiProperty({ example: 0 })
  index!: number;

  /** Its start: the appointment's (after any move), or the time it would have had. */
  @ApiProperty({ format: 'date-time', example: '2026-01-05T14:00:00.000Z' })
  datetime!: string;

  @ApiProperty({ nullable: true, type: String, format: 'uuid', example: null })
  appointmentId!: string | null;

  /** The appointment's status, or `skipped` when it was not booked. */
  @ApiProperty({ enum: [...APPOINTMENT_STATUSES, 'skipped'], example: 'scheduled' })
  status!: AppointmentStatus | 'skipped';

  /** Why it was skipped: `overlap`, `outside_working_hours`, `time_off` or `policy`; null when booked. */
  @ApiProperty({ nullable: true, enum: CONFLICT_REASONS, example: null })
  reason!: ConflictReason | null;
}

export class SeriesDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  patientId!: string;

  @ApiProperty({ format: 'uuid' })
  providerId!: string;

  @ApiProperty({ nullable: true, type: String, format: 'uuid' })
  appointmentTypeId!: string | null;

  @ApiProperty({ example: 'America/New_York' })
  timezone!: string;

  /** The first occurrence's wall time in `timezone` (an edit of all occurrences' localTime changes it). */
  @ApiProperty({ example: '2026-01-05T09:00' })
  start!: string;

  @ApiProperty({ example: 'FREQ=WEEKLY;COUNT=4' })
  rrule!: string;

  @ApiProperty({ type: [String], example: [] })
  exdates!: string[];

  @ApiProperty({ enum: SERIES_STATUSES, example: 'active' })
  status!: SeriesStatus;

  /** Every occurrence of the rule but the exdates, in order. */
  @ApiProperty({ type: [SeriesOccurrenceDto] })
  occurrences!: SeriesOccurrenceDto[];

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

/** An occurrence that cannot be booked (or moved), with the provider's next free slots after it. */
export class SeriesConflictDto {
  @ApiProperty({ example: 6 })
  index!: number;

  @ApiProperty({ format: 'date-time', example: '2026-02-16T14:00:00.000Z' })
  datetime!: string;

  @ApiProperty({ enum: CONFLICT_REASONS, example: 'overlap' })
  reason!: ConflictReason;

  @ApiProperty({ type: [SlotDto] })
  alternatives!: SlotDto[];
}

/** A dry run's answer, and an edit's: the series, and the occurrences that could not be booked or moved. */
export class SeriesOutcomeDto extends SeriesDto {
  @ApiProperty({ type: [SeriesConflictDto] })
  conflicts!: SeriesConflictDto[];
}

export class SeriesListDto extends PageOf(SeriesDto, 'series', 'Newest first') {}
