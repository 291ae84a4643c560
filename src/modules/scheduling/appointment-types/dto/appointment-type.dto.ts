import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageOf, PageQueryDto } from '../../../../common/http/lists/pagination';
import { WhenClearable, WhenPresent } from '../../../../common/http/requests/patch-members';
import { POLICY_LIMITS, REMINDER_CHANNELS } from '../../appointments/appointment-policies';
import type { ReminderChannel } from '../../appointments/appointment-policies';

const NOT_BLANK = /\S/;
const L = POLICY_LIMITS;

export class ReminderRuleDto {
  /** Minutes before the appointment's start. */
  @ApiProperty({ type: 'integer', minimum: L.reminderOffset.min, maximum: L.reminderOffset.max, example: 1440 })
  @IsInt()
  @Min(L.reminderOffset.min)
  @Max(L.reminderOffset.max)
  offsetMinutes!: number;

  @ApiProperty({ enum: REMINDER_CHANNELS, example: 'email' })
  @IsIn(REMINDER_CHANNELS)
  channel!: ReminderChannel;

  /** An email template (channel email) or an SMS template (channel sms) of this tenant and mode; else 400 naming `reminders.<i>.templateId`. */
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all', { message: 'must be a template id' })
  templateId!: string;
}

/** The body of POST /scheduling/appointment-types. */
export class CreateAppointmentTypeDto {
  @ApiProperty({ example: 'Consultation', minLength: 1, maxLength: 100 })
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name!: string;

  @ApiProperty({ type: 'integer', minimum: L.duration.min, maximum: L.duration.max, example: 30 })
  @IsInt()
  @Min(L.duration.min)
  @Max(L.duration.max)
  durationMinutes!: number;

  /** Free time kept before each appointment of this type. */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: L.buffer.max, default: 0, example: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(L.buffer.max)
  bufferBeforeMinutes?: number;

  /** Free time kept after each appointment of this type. */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: L.buffer.max, default: 0, example: 15 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(L.buffer.max)
  bufferAfterMinutes?: number;

  /** A slot is offered only if it starts at least this long from now. */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: L.notice.max, default: 0, example: 60 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(L.notice.max)
  minimumNoticeMinutes?: number;

  /** A slot is offered only if it starts at most this many days (of 24 hours) from now. */
  @ApiPropertyOptional({ type: 'integer', minimum: L.horizon.min, maximum: L.horizon.max, default: 365, example: 90 })
  @IsOptional()
  @IsInt()
  @Min(L.horizon.min)
  @Max(L.horizon.max)
  bookingHorizonDays?: number;

  /** Slots start on this grid from each working interval's start; default the smaller of durationMinutes and 15. */
  @ApiPropertyOptional({ type: 'integer', minimum: L.interval.min, maximum: L.interval.max, example: 15 })
  @IsOptional()
  @IsInt()
  @Min(L.interval.min)
  @Max(L.interval.max)
  slotIntervalMinutes?: number;

  /** At most this many active appointments of this type per provider and local day; null: no cap. */
  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: L.perDay.min, maximum: L.perDay.max, default: null, example: 6 })
  @IsOptional()
  @WhenClearable()
  @IsInt()
  @Min(L.perDay.min)
  @Max(L.perDay.max)
  maxPerDayPerProvider?: number | null;

  /** A patient's link cannot cancel or reschedule within this many minutes of the start. */
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: L.cancellationWindow.max, default: 1440, example: 1440 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(L.cancellationWindow.max)
  cancellationWindowMinutes?: number;

  /** Providers of this tenant and mode who offer it (else 400 naming `providerIds.<i>`); empty: every active provider. */
  @ApiPropertyOptional({ type: [String], format: 'uuid', default: [], example: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique({ message: 'must not repeat a provider' })
  @IsUUID('all', { each: true, message: 'each provider id must be a UUID' })
  providerIds?: string[];

  /**
   * At most 5. Stored with the type; reminders of its appointments are planned from them. Two with the same
   * offsetMinutes and channel (whatever their templates) would text or mail twice at once: 400 naming the later, `reminders.<i>`.
   */
  @ApiPropertyOptional({ type: [ReminderRuleDto], default: [], example: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(L.reminders.max)
  @IsObject({ each: true, message: 'each reminder must be an object' })
  @ValidateNested({ each: true })
  @Type(() => ReminderRuleDto)
  reminders?: ReminderRuleDto[];

  /** An inactive type cannot be booked or offered; its appointments keep it. */
  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  isActive?: boolean;
}

/** PATCH /scheduling/appointment-types/{id}: omitted members are unchanged; `null` clears maxPerDayPerProvider. */
export class UpdateAppointmentTypeDto {
  @ApiPropertyOptional({ example: 'New patient (extended)', minLength: 1, maxLength: 100 })
  @WhenPresent()
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: L.duration.min, maximum: L.duration.max, example: 45 })
  @WhenPresent()
  @IsInt()
  @Min(L.duration.min)
  @Max(L.duration.max)
  durationMinutes?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: L.buffer.max, example: 5 })
  @WhenPresent()
  @IsInt()
  @Min(0)
  @Max(L.buffer.max)
  bufferBeforeMinutes?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: L.buffer.max, example: 10 })
  @WhenPresent()
  @IsInt()
  @Min(0)
  @Max(L.buffer.max)
  bufferAfterMinutes?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: L.notice.max, example: 120 })
  @WhenPresent()
  @IsInt()
  @Min(0)
  @Max(L.notice.max)
  minimumNoticeMinutes?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: L.horizon.min, maximum: L.horizon.max, example: 180 })
  @WhenPresent()
  @IsInt()
  @Min(L.horizon.min)
  @Max(L.horizon.max)
  bookingHorizonDays?: number;

  @ApiPropertyOptional({ type: 'integer', minimum: L.interval.min, maximum: L.interval.max, example: 15 })
  @WhenPresent()
  @IsInt()
  @Min(L.interval.min)
  @Max(L.interval.max)
  slotIntervalMinutes?: number;

  @ApiPropertyOptional({ type: 'integer', nullable: true, minimum: L.perDay.min, maximum: L.perDay.max, example: 8 })
  @WhenClearable()
  @IsInt()
  @Min(L.perDay.min)
  @Max(L.perDay.max)
  maxPerDayPerProvider?: number | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: L.cancellationWindow.max, example: 720 })
  @WhenPresent()
  @IsInt()
  @Min(0)
  @Max(L.cancellationWindow.max)
  cancellationWindowMinutes?: number;

  /** Replaces the list; empty: every active provider. */
  @ApiPropertyOptional({ type: [String], format: 'uuid', example: [] })
  @WhenPresent()
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique({ message: 'must not repeat a provider' })
  @IsUUID('all', { each: true, message: 'each provider id must be a UUID' })
  providerIds?: string[];

  /** Replaces the list; at most 5, no two with the same offsetMinutes and channel (400 naming the later, `reminders.<i>`). */
  @ApiPropertyOptional({ type: [ReminderRuleDto], example: [] })
  @WhenPresent()
  @IsArray()
  @ArrayMaxSize(L.reminders.max)
  @IsObject({ each: true, message: 'each reminder must be an object' })
  @ValidateNested({ each: true })
  @Type(() => ReminderRuleDto)
  reminders?: ReminderRuleDto[];

  @ApiPropertyOptional({ example: true })
  @WhenPresent()
  @IsBoolean()
  isActive?: boolean;
}

export class ListAppointmentTypesQueryDto extends PageQueryDto {}

export class AppointmentTypeDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'New patient' })
  name!: string;

  @ApiProperty({ example: 60 })
  durationMinutes!: number;

  @ApiProperty({ example: 0 })
  bufferBeforeMinutes!: number;

  @ApiProperty({ example: 15 })
  bufferAfterMinutes!: number;

  @ApiProperty({ example: 1440 })
  minimumNoticeMinutes!: number;

  @ApiProperty({ example: 365 })
  bookingHorizonDays!: number;

  @ApiProperty({ example: 15 })
  slotIntervalMinutes!: number;

  @ApiProperty({ type: 'integer', nullable: true, example: null })
  maxPerDayPerProvider!: number | null;

  @ApiProperty({ example: 1440 })
  cancellationWindowMinutes!: number;

  /** Empty: every active provider. */
  @ApiProperty({ type: [String], format: 'uuid' })
  providerIds!: string[];

  @ApiProperty({ type: [ReminderRuleDto] })
  reminders!: ReminderRuleDto[];

  @ApiProperty()
  isActive!: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class AppointmentTypeListDto extends PageOf(AppointmentTypeDto, 'appointmentTypes', 'Newest first') {}
