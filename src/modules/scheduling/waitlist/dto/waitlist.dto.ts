import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsISO8601, IsObject, IsOptional, IsString, IsUUID, Matches, ValidateNested } from 'class-validator';
import { exampleFromNow } from '../../../../common/http/openapi/example-dates';
import { PageOf, PageQueryDto } from '../../../../common/http/lists/pagination';
import { WorkingIntervalDto } from '../../providers/dto/provider.dto';
import { PublicAppointmentDto } from '../../self-service/dto/public-appointment.dto';
import { WhenPresent } from '../../../../common/http/requests/patch-members';
import { WAITLIST_ENTRY_STATUSES } from '../entities/waitlist-entry.entity';
import { WAITLIST_OFFER_STATUSES } from '../entities/waitlist-offer.entity';
import type { WaitlistEntryStatus } from '../entities/waitlist-entry.entity';
import type { WaitlistOfferStatus } from '../entities/waitlist-offer.entity';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
export const MAX_WINDOWS = 28;
export const MAX_PROVIDERS = 50;

/** The body of POST /scheduling/waitlist. */
export class CreateWaitlistEntryDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  patientId!: string;

  /** An active appointment type of this tenant and mode: the slot's length and policies. */
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  appointmentTypeId!: string;

  /** Providers (who offer the type) the patient would see; absent: the type's. */
  @ApiPropertyOptional({ type: [String], format: 'uuid' })
  @WhenPresent()
  @IsArray()
  @ArrayMaxSize(MAX_PROVIDERS)
  @IsUUID('all', { each: true })
  providerIds?: string[];

  /** The first local date (provider's timezone) a slot may be on. */
  @ApiPropertyOptional({ format: 'date', ...exampleFromNow(0) })
  @WhenPresent()
  @IsString()
  @Matches(DATE, { message: 'must be a date YYYY-MM-DD' })
  @IsISO8601({ strict: true }, { message: 'must be a real date YYYY-MM-DD' })
  earliestDate?: string;

  /** The last local date a slot may be on. */
  @ApiPropertyOptional({ format: 'date', ...exampleFromNow(14) })
  @WhenPresent()
  @IsString()
  @Matches(DATE, { message: 'must be a date YYYY-MM-DD' })
  @IsISO8601({ strict: true }, { message: 'must be a real date YYYY-MM-DD' })
  latestDate?: string;

  /** When in the week the patient can come; absent or empty: any time. */
  @ApiPropertyOptional({ type: [WorkingIntervalDto], example: [{ weekday: 1, start: '08:00', end: '18:00' }] })
  @WhenPresent()
  @IsArray()
  @ArrayMaxSize(MAX_WINDOWS)
  @IsObject({ each: true, message: 'each item must be an object' })
  @ValidateNested({ each: true })
  @Type(() => WorkingIntervalDto)
  windows?: WorkingIntervalDto[];

  /** The patient's current (scheduled or confirmed) appointment of the type, moved to an earlier slot they accept. */
  @ApiPropertyOptional({ format: 'uuid' })
  @WhenPresent()
  @IsUUID()
  appointmentId?: string;
}

export class ListWaitlistQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: WAITLIST_ENTRY_STATUSES })
  @IsOptional()
  @IsIn(WAITLIST_ENTRY_STATUSES)
  status?: WaitlistEntryStatus;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  patientId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  appointmentTypeId?: string;
}

export class WaitlistOfferDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** The slot's start. */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '15:30') })
  datetime!: string;

  @ApiProperty({ format: 'uuid' })
  providerId!: string;

  /** Until when the slot is kept for the patient (on the tenant's clock). */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '10:00') })
  expiresAt!: string;

  @ApiProperty({ enum: WAITLIST_OFFER_STATUSES, example: 'pending' })
  status!: WaitlistOfferStatus;
}

export class WaitlistEntryDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  patientId!: string;

  @ApiProperty({ format: 'uuid' })
  appointmentTypeId!: string;

  /** Empty: any provider who offers the type. */
  @ApiProperty({ type: [String], format: 'uuid' })
  providerIds!: string[];

  @ApiProperty({ type: String, format: 'date', nullable: true, example: null })
  earliestDate!: string | null;

  @ApiProperty({ type: String, format: 'date', nullable: true, example: null })
  latestDate!: string | null;

  @ApiProperty({ type: [WorkingIntervalDto] })
  windows!: WorkingIntervalDto[];

  @ApiProperty({ type: String, format: 'uuid', nullable: true, example: null })
  appointmentId!: string | null;

  /** `waiting` for a slot; `offered` while an offer is pending; `booked` once one is accepted; `cancelled` by DELETE. */
  @ApiProperty({ enum: WAITLIST_ENTRY_STATUSES, example: 'waiting' })
  status!: WaitlistEntryStatus;

  /** Every offer made to it, oldest first. */
  @ApiProperty({ type: [WaitlistOfferDto] })
  offers!: WaitlistOfferDto[];

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class WaitlistEntryListDto extends PageOf(WaitlistEntryDto, 'entries') {}

/** What a patient's offer link shows: the slot, no patient data. */
export class PublicWaitlistOfferDto {
  @ApiProperty({ enum: WAITLIST_OFFER_STATUSES, example: 'pending' })
  status!: WaitlistOfferStatus;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '15:30') })
  datetime!: string;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '16:00') })
  end!: string;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '10:00') })
  expiresAt!: string;

  @ApiProperty({ example: 'Dr. Grace Hopper' })
  providerName!: string;

  /** The provider's timezone, in which the page shows the time. */
  @ApiProperty({ example: 'America/New_York' })
  timezone!: string;

  @ApiProperty({ type: String, nullable: true, example: 'Check-up' })
  appointmentTypeName!: string | null;

  @ApiProperty({ example: 'Riverside Clinic' })
  practiceName!: string;
}

/** The appointment an accepted offer booked (or moved), as the patient's link shows it, with its manage link. */
export class AcceptedWaitlistOfferDto extends PublicAppointmentDto {
  /** The appointment's manage link. */
  @ApiProperty({ example: 'https://api.example.com/api/v1/public/appointments/3fK9xQ2mZ7pL1wR8' })
  manageUrl!: string;
}
