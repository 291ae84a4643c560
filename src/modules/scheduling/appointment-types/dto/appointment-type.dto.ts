import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
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
import { NOTICE_CHANNELS } from '../entities/appointment-type.entity';
import type { NoticeChannel } from '../entities/appointment-type.entity';

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

/** A list of notice channels: one or both, once each (documented by hand: the plugin cannot see through a composed decorator). */
const NOTICE_CHANNEL_LIST = {
  enum: NOTICE_CHANNELS,
  isArray: true,
  minItems: 1,
  maxItems: NOTICE_CHANNELS.length,
  uniqueItems: true,
} as const;
const NoticeChannelList = (): PropertyDecorator =>
  applyDecorators(
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(NOTICE_CHANNELS.length),
    ArrayUnique({ message: 'must not repeat a channel' }),
    IsIn(NOTICE_CHANNELS, { each: true }),
  );

/** A nested object member, validated by its class (unknown members refused as at the top). */
const NestedObject = (type: () => new () => object): PropertyDecorator => applyDecorators(IsObject(), ValidateNested(), Type(type));

/** Which changes of an appointment tell the patient; an omitted member is on (create) or unchanged (PATCH). */
export class NoticesInputDto {
  /** Booked through a booking page, or by a key with notifyPatient. */
  @ApiPropertyOptional({ default: true, example: true })
  @WhenPresent()
  @IsBoolean()
  booked?: boolean;

  /** Moved through the patient's manage link, or by a key with notifyPatient. */
  @ApiPropertyOptional({ default: true, example: true })
  @WhenPresent()
  @IsBoolean()
  rescheduled?: boolean;

  /** Cancelled through the patient's manage link, or by a key with notifyPatient. */
  @ApiPropertyOptional({ default: true, example: true })
  @WhenPresent()
  @IsBoolean()
  cancelled?: boolean;
}

/**
 * Email templates of this tenant and mode that replace a notice's built-in text (else 400 naming
 * `noticeTemplates.<change>`); omitted or null: the built-in text (PATCH: omitted is unchanged, null clears).
 */
export class NoticeTemplatesInputDto {
  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String, example: null })
  @WhenClearable()
  @IsUUID('all', { message: 'must be a template id' })
  booked?: string | null;

  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String, example: null })
  @WhenClearable()
  @IsUUID('all', { message: 'must be a template id' })
  rescheduled?: string | null;

  @ApiPropertyOptional({ format: 'uuid', nullable: true, type: String, example: null })
  @WhenClearable()
  @IsUUID('all', { message: 'must be a template id' })
  cancelled?: string | null;
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

  /** How long a waitlist offer of this type keeps its slot for the patient before it goes to the next entry. */
  @ApiPropertyOptional({ type: 'integer', minimum: L.waitlistOffer.min, maximum: L.waitlistOffer.max, default: 60, example: 60 })
  @IsOptional()
  @IsInt()
  @Min(L.waitlistOffer.min)
  @Max(L.waitlistOffer.max)
  waitlistOfferMinutes?: number;

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

  /** Which changes send the patient a booking notice (each on by default). */
  @ApiPropertyOptional({ type: NoticesInputDto, example: { booked: true, rescheduled: true, cancelled: true } })
  @IsOptional()
  @NestedObject(() => NoticesInputDto)
  notices?: NoticesInputDto;

  /** The channels of its notices: `["email"]` (default, with the appointment's .ics), `["sms"]` or both. */
  @ApiPropertyOptional({ ...NOTICE_CHANNEL_LIST, default: ['email'], example: ['email'] })
  @IsOptional()
  @NoticeChannelList()
  noticeChannels?: NoticeChannel[];

  @ApiPropertyOptional({ type: NoticeTemplatesInputDto, example: {} })
  @IsOptional()
  @NestedObject(() => NoticeTemplatesInputDto)
  noticeTemplates?: NoticeTemplatesInputDto;

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

  @ApiPropertyOptional({ type: 'integer', minimum: L.waitlistOffer.min, maximum: L.waitlistOffer.max, example: 30 })
  @WhenPresent()
  @IsInt()
  @Min(L.waitlistOffer.min)
  @Max(L.waitlistOffer.max)
  waitlistOfferMinutes?: number;

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

  /** Merged: an omitted member is unchanged. */
  @ApiPropertyOptional({ type: NoticesInputDto, example: { cancelled: false } })
  @WhenPresent()
  @NestedObject(() => NoticesInputDto)
  notices?: NoticesInputDto;

  /** Replaces the list: `["email"]`, `["sms"]` or both. */
  @ApiPropertyOptional({ ...NOTICE_CHANNEL_LIST, example: ['email', 'sms'] })
  @WhenPresent()
  @NoticeChannelList()
  noticeChannels?: NoticeChannel[];

  /** Merged per change: an omitted member is unchanged, null returns it to the built-in text. */
  @ApiPropertyOptional({ type: NoticeTemplatesInputDto, example: {} })
  @WhenPresent()
  @NestedObject(() => NoticeTemplatesInputDto)
  noticeTemplates?: NoticeTemplatesInputDto;

  @ApiPropertyOptional({ example: true })
  @WhenPresent()
  @IsBoolean()
  isActive?: boolean;
}

export class ListAppointmentTypesQueryDto extends PageQueryDto {}

export class NoticesDto {
  @ApiProperty({ example: true })
  booked!: boolean;

  @ApiProperty({ example: true })
  rescheduled!: boolean;

  @ApiProperty({ example: true })
  cancelled!: boolean;
}

/** Null: the built-in text. */
export class NoticeTemplatesDto {
  @ApiProperty({ format: 'uuid', nullable: true, type: String, example: null })
  booked!: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, example: null })
  rescheduled!: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String, example: null })
  cancelled!: string | null;
}

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

  /** How long a waitlist offer of this type keeps its slot. */
  @ApiProperty({ example: 60 })
  waitlistOfferMinutes!: number;

  /** Empty: every active provider. */
  @ApiProperty({ type: [String], format: 'uuid' })
  providerIds!: string[];

  @ApiProperty({ type: [ReminderRuleDto] })
  reminders!: ReminderRuleDto[];

  /** Which changes send the patient a booking notice. */
  @ApiProperty({ type: NoticesDto })
  notices!: NoticesDto;

  @ApiProperty({ enum: NOTICE_CHANNELS, isArray: true, example: ['email'] })
  noticeChannels!: NoticeChannel[];

  /** The email templates that replace the built-in notices. */
  @ApiProperty({ type: NoticeTemplatesDto })
  noticeTemplates!: NoticeTemplatesDto;

  @ApiProperty()
  isActive!: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class AppointmentTypeListDto extends PageOf(AppointmentTypeDto, 'appointmentTypes', 'Newest first') {}
