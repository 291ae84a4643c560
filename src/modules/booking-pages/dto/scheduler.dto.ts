import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { PageOf, PageQueryDto } from '../../../common/http/lists/pagination';
import { WhenClearable, WhenPresent } from '../../../common/http/requests/patch-members';
import { IsSlug } from '../../../common/slug';

const NOT_BLANK = /\S/;
export const MAX_SCHEDULER_PROVIDERS = 20;

const PROVIDER_IDS_EXAMPLE = ['0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b'];

/** The body of POST /schedulers. */
export class CreateSchedulerDto {
  @ApiProperty({ example: 'GP consultation' })
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name!: string;

  /** Unique per tenant and mode (409 slug_taken); derived from the name when absent. */
  @ApiPropertyOptional({ example: 'gp-consultation' })
  @IsOptional()
  @IsString()
  @IsSlug()
  slug?: string;

  @ApiPropertyOptional({ example: 'A 30-minute consultation with one of our GPs.' })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  description?: string;

  /** The providers this page books, 1–20 of this tenant and mode; a booking goes to the first one free at that time. */
  @ApiProperty({ type: [String], format: 'uuid', example: PROVIDER_IDS_EXAMPLE })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SCHEDULER_PROVIDERS)
  @ArrayUnique({ message: 'must not repeat a provider' })
  @IsUUID('all', { each: true, message: 'each provider id must be a UUID' })
  providerIds!: string[];

  /** Minutes of each appointment booked through the page; required unless appointmentTypeId is sent instead. */
  @ApiPropertyOptional({ minimum: 5, maximum: 480, example: 30 })
  @ValidateIf((body: CreateSchedulerDto) => body.appointmentTypeId === undefined || body.duration !== undefined)
  @IsInt()
  @Min(5)
  @Max(480)
  duration?: number;

  /** The appointment type of its bookings (free text); not with appointmentTypeId. */
  @ApiPropertyOptional({ example: 'consultation' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  type?: string;

  /**
   * Instead of duration and type: an active appointment type of this tenant and mode, whose duration, policies
   * and providers (among providerIds) the page books.
   */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  appointmentTypeId?: string;

  /** An inactive page answers 404 publicly. */
  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  isActive?: boolean;

  /** A booking through the page must give a phone (400 naming `phone` otherwise). */
  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  requirePhone?: boolean;
}

/** PATCH /schedulers/{id}: omitted members are unchanged; `null` clears description and type. */
export class UpdateSchedulerDto {
  @ApiPropertyOptional({ example: 'GP consultation (45 min)' })
  @WhenPresent()
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name?: string;

  /** Unique per tenant and mode (409 slug_taken). */
  @ApiPropertyOptional({ example: 'gp-consultation-45' })
  @WhenPresent()
  @IsString()
  @IsSlug()
  slug?: string;

  @ApiPropertyOptional({ nullable: true, type: String, example: 'A 45-minute consultation.' })
  @WhenClearable()
  @IsString()
  @MaxLength(2000)
  description?: string | null;

  @ApiPropertyOptional({ type: [String], format: 'uuid', example: PROVIDER_IDS_EXAMPLE })
  @WhenPresent()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SCHEDULER_PROVIDERS)
  @ArrayUnique({ message: 'must not repeat a provider' })
  @IsUUID('all', { each: true, message: 'each provider id must be a UUID' })
  providerIds?: string[];

  @ApiPropertyOptional({ minimum: 5, maximum: 480, example: 45 })
  @WhenPresent()
  @IsInt()
  @Min(5)
  @Max(480)
  duration?: number;

  @ApiPropertyOptional({ nullable: true, type: String, example: 'consultation' })
  @WhenClearable()
  @IsString()
  @MaxLength(100)
  type?: string | null;

  /** An appointment type instead of duration and type (which it clears); `null` goes back to a bare duration, sent with it. */
  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid' })
  @WhenClearable()
  @IsUUID()
  appointmentTypeId?: string | null;

  @ApiPropertyOptional({ example: false })
  @WhenPresent()
  @IsBoolean()
  isActive?: boolean;

  @ApiPropertyOptional({ example: true })
  @WhenPresent()
  @IsBoolean()
  requirePhone?: boolean;
}

export class SchedulerDto {
  @ApiProperty({ format: 'uuid', example: '0193a5b2-9e10-7c3d-b2a1-5f6e7d8c9b0a' })
  id!: string;

  @ApiProperty({ example: 'New patient consultation' })
  name!: string;

  @ApiProperty({ example: 'new-patient-consultation' })
  slug!: string;

  @ApiProperty({ nullable: true, type: String, example: 'A 30-minute first visit with one of our GPs.' })
  description!: string | null;

  @ApiProperty({ type: [String], format: 'uuid', example: PROVIDER_IDS_EXAMPLE })
  providerIds!: string[];

  /** Minutes; null when the page books an appointment type. */
  @ApiProperty({ type: 'integer', nullable: true, example: 30 })
  duration!: number | null;

  @ApiProperty({ nullable: true, type: String, example: 'consultation' })
  type!: string | null;

  /** The appointment type the page books, or null for a bare duration. */
  @ApiProperty({ nullable: true, type: String, format: 'uuid', example: null })
  appointmentTypeId!: string | null;

  @ApiProperty({ example: true })
  isActive!: boolean;

  /** A booking through the page must give a phone. */
  @ApiProperty({ example: false })
  requirePhone!: boolean;

  /** The page patients open (PUBLIC_URL): a booking page in a browser, its JSON for a client. */
  @ApiProperty({ format: 'uri', example: 'https://api.acmeclinic.com/api/v1/public/schedulers/0193a5b2-9e10-7c3d-b2a1-5f6e7d8c9b0a' })
  bookingUrl!: string;

  /** Public page views (GET /public/schedulers/{id}). */
  @ApiProperty({ type: 'integer', example: 120 })
  viewsCount!: number;

  /** Bookings made through the public page. */
  @ApiProperty({ type: 'integer', example: 18 })
  bookingsCount!: number;

  /** bookingsCount / viewsCount, 0 with no views (4 decimals). */
  @ApiProperty({ example: 0.15 })
  conversionRate!: number;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T14:00:00.000Z' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-23T14:00:00.000Z' })
  updatedAt!: string;
}

export class SchedulerListDto extends PageOf(SchedulerDto, 'schedulers') {}

const toBoolean = ({ value }: { value: unknown }): unknown => (value === 'true' ? true : value === 'false' ? false : value);

/** GET /schedulers: a page, newest first. */
export class ListSchedulersQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ type: Boolean })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  isActive?: boolean;
}
