import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsEmail,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import type { ValidationArguments } from 'class-validator';
import { PageOf } from '../../../../common/http/lists/pagination';
import { IsIanaTimeZone } from '../time-zones';
import { WhenClearable, WhenPresent } from '../../../../common/http/requests/patch-members';

const HHMM = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;

/**
 * Each interval must be an object: class-validator walks into an item that is an array (`[[]]`) and, finding
 * nothing in it, would let it through to the rules that read its times. The message names the first bad item.
 */
const EACH_INTERVAL_AN_OBJECT = IsObject({
  each: true,
  message: ({ value }: ValidationArguments) =>
    `item ${Array.isArray(value) ? value.findIndex((v) => v === null || typeof v !== 'object' || Array.isArray(v)) : 0} must be an object`,
});

/** One weekly working interval in the provider's timezone. A day may have several (09:00–12:00 and 13:00–17:00). */
export class WorkingIntervalDto {
  /** ISO weekday: 1 is Monday, 7 is Sunday. */
  @ApiProperty({ minimum: 1, maximum: 7, example: 1 })
  @IsInt()
  @Min(1)
  @Max(7)
  weekday!: number;

  /** Local wall-clock time, HH:MM (24-hour). */
  @ApiProperty({ example: '09:00' })
  @IsString()
  @Matches(HHMM, { message: 'must be a time HH:MM between 00:00 and 23:59' })
  start!: string;

  /** Local wall-clock time, HH:MM, after start; 24:00 is the end of the day. */
  @ApiProperty({ example: '17:00' })
  @IsString()
  @Matches(HHMM, { message: 'must be a time HH:MM between 00:00 and 24:00' })
  end!: string;
}

export class CreateProviderDto {
  @ApiProperty({ example: 'Dr. Grace Hopper' })
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiPropertyOptional({ format: 'email', nullable: true, type: String, example: 'grace@clinic.example' })
  @IsOptional()
  @IsEmail()
  @MaxLength(320)
  email?: string | null;

  /** IANA timezone the working hours are in; availability is computed in it, across daylight-saving changes. */
  @ApiProperty({ example: 'America/New_York' })
  @IsString()
  @IsIanaTimeZone()
  timezone!: string;

  @ApiProperty({
    type: [WorkingIntervalDto],
    example: [
      { weekday: 1, start: '09:00', end: '12:00' },
      { weekday: 1, start: '13:00', end: '17:00' },
    ],
  })
  @IsArray()
  @ArrayMaxSize(70)
  @EACH_INTERVAL_AN_OBJECT
  @ValidateNested({ each: true })
  @Type(() => WorkingIntervalDto)
  workingHours!: WorkingIntervalDto[];

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  isActive?: boolean;
}

/** PATCH: an omitted field is unchanged; workingHours replaces the whole week. */
export class UpdateProviderDto {
  @ApiPropertyOptional({ example: 'Dr. Grace Hopper' })
  @WhenPresent()
  @IsString()
  @Length(1, 200)
  name?: string;

  @ApiPropertyOptional({ format: 'email', nullable: true, type: String })
  @WhenClearable()
  @IsEmail()
  @MaxLength(320)
  email?: string | null;

  @ApiPropertyOptional({ example: 'Europe/London' })
  @WhenPresent()
  @IsString()
  @IsIanaTimeZone()
  timezone?: string;

  @ApiPropertyOptional({ type: [WorkingIntervalDto] })
  @WhenPresent()
  @IsArray()
  @ArrayMaxSize(70)
  @EACH_INTERVAL_AN_OBJECT
  @ValidateNested({ each: true })
  @Type(() => WorkingIntervalDto)
  workingHours?: WorkingIntervalDto[];

  @ApiPropertyOptional()
  @WhenPresent()
  @IsBoolean()
  isActive?: boolean;
}

export class ProviderDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'Dr. Grace Hopper' })
  name!: string;

  @ApiProperty({ format: 'email', nullable: true, type: String })
  email!: string | null;

  @ApiProperty({ example: 'America/New_York' })
  timezone!: string;

  @ApiProperty({ type: [WorkingIntervalDto] })
  workingHours!: WorkingIntervalDto[];

  @ApiProperty()
  isActive!: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class ProviderListDto extends PageOf(ProviderDto, 'providers') {}
