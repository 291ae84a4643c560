import { ApiProperty, ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsEmail, IsISO8601, IsOptional, IsUUID, Matches, MaxLength } from 'class-validator';
import { CreatePatientDto, IsPhone } from '../../patients';
import { DateRangeQueryDto, IsInstant, UnlessHeld } from '../../scheduling';
import { IsTextableNumber } from '../../sms';
import { SchedulerDto } from './scheduler.dto';
import { exampleFromNow } from '../../../common/http/openapi/example-dates';
import { WhenPresent } from '../../../common/http/requests/patch-members';

/** Who a public page books with: a name and a timezone, never an id. */
export class PublicProviderDto {
  @ApiProperty({ example: 'Dr. Grace Hopper' })
  name!: string;

  @ApiProperty({ example: 'America/New_York' })
  timezone!: string;
}

/** A booking page as anyone may see it: no counters, no internal ids but its own. */
export class PublicSchedulerDto extends PickType(SchedulerDto, [
  'id',
  'name',
  'slug',
  'description',
  'duration',
  'type',
  'requirePhone',
] as const) {
  /** The page's active providers. */
  @ApiProperty({ type: [PublicProviderDto] })
  providers!: PublicProviderDto[];
}

/** What the hosted page (a browser's GET of the page) shows: one provider's times, a week from a date. */
export class PublicSchedulerPageQueryDto {
  /** One of the page's providers (its id); the page's first by default. */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a provider id' })
  provider?: string;

  /** The first day shown, in the provider's timezone (`YYYY-MM-DD`); today by default (an earlier date shows today). */
  @ApiPropertyOptional({ format: 'date' })
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date (YYYY-MM-DD)' })
  @IsISO8601({ strict: true }, { message: 'must be a real date' })
  from?: string;
}

/** startDate and endDate (dates read in each provider's timezone, or date-times), at most 31 days apart. */
export class PublicAvailabilityQueryDto extends DateRangeQueryDto {}

export class PublicSlotDto {
  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '14:00') })
  start!: string;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '14:30') })
  end!: string;
}

export class PublicAvailabilityDto {
  /** Free slots of the page's duration, ascending; a time any of its providers has free appears once. */
  @ApiProperty({ type: [PublicSlotDto] })
  slots!: PublicSlotDto[];
}

/** The body of POST /public/schedulers/{id}/book: names and phone as a patient's, and a phone the practice may text. */
export class PublicBookingDto extends PickType(CreatePatientDto, ['firstName', 'lastName'] as const) {
  /** The patient is found by this email in the practice, or created as a lead. */
  @ApiProperty({ format: 'email', example: 'ada.lovelace@example.com' })
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(320)
  email!: string;

  /**
   * International format, stored as the patient's phone, which the practice's reminders text: a mobile or
   * fixed-line number (a premium-rate, shared-cost or other non-personal number is 400 naming `phone`).
   */
  @ApiPropertyOptional({ example: '+44 7400 123456' })
  @IsOptional()
  @IsPhone()
  @IsTextableNumber()
  phone?: string;

  /** The start: one of the page's free slots. Required unless holdId is sent; with it, the hold's start or omitted. */
  @ApiPropertyOptional({ format: 'date-time', ...exampleFromNow(0, '14:00') })
  @UnlessHeld()
  @IsInstant()
  datetime?: string;

  /** A hold this page took (POST /public/schedulers/{id}/holds): its time is booked, with its provider. */
  @ApiPropertyOptional({ format: 'uuid' })
  @WhenPresent()
  @IsUUID()
  holdId?: string;
}

/** The body of POST /public/schedulers/{id}/holds. */
export class PublicHoldDto {
  /** The start: one of the page's free slots. */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '18:00') })
  @IsInstant()
  datetime!: string;

  /** One of the page's providers; absent: the first of them free at datetime. */
  @ApiPropertyOptional({ format: 'uuid' })
  @WhenPresent()
  @IsUUID()
  providerId?: string;
}

/** A hold a booking page took: book it with holdId within expiresAt. */
export class PublicHoldResultDto {
  @ApiProperty({ format: 'uuid', example: '0193a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e10' })
  holdId!: string;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '09:05') })
  expiresAt!: string;
}

/** A public booking as the booker sees it: the appointment's id and time, the provider's name. */
export class PublicBookingResultDto {
  /** The appointment's id. */
  @ApiProperty({ format: 'uuid', example: '0193a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e0f' })
  id!: string;

  @ApiProperty({ format: 'uuid', example: '0193a5b2-9e10-7c3d-b2a1-5f6e7d8c9b0a' })
  schedulerId!: string;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '14:00') })
  datetime!: string;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '14:30') })
  end!: string;

  /** Minutes. */
  @ApiProperty({ type: 'integer', example: 30 })
  duration!: number;

  @ApiProperty({ enum: ['scheduled'], example: 'scheduled' })
  status!: 'scheduled';

  @ApiProperty({ nullable: true, type: String, example: 'consultation' })
  type!: string | null;

  @ApiProperty({ type: PublicProviderDto })
  provider!: PublicProviderDto;

  /** The patient's link to view, confirm, cancel or reschedule the appointment (no key). */
  @ApiProperty({ format: 'uri', example: 'https://api.acmeclinic.com/api/v1/public/appointments/3kT9fQ2mZ8xW4bLp' })
  manageUrl!: string;
}
