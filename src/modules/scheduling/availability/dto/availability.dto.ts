import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, IsUUID, Matches, Max, Min } from 'class-validator';
import { QueryInt } from '../../../../common/http/requests/query';
import { exampleFromNow } from '../../../../common/http/openapi/example-dates';

/** A date (YYYY-MM-DD, in the provider's timezone) or a date-time with Z or an offset. */
export const DATE_OR_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const DATE_OR_INSTANT_MESSAGE = 'must be a date (YYYY-MM-DD) or a date-time with Z or an offset';

/** startDate and endDate of an availability query (at most 31 days apart). */
export class DateRangeQueryDto {
  /** Start of the range: a date (its start in the provider's timezone) or a date-time. */
  @ApiProperty({ ...exampleFromNow(0) })
  @IsString()
  @Matches(DATE_OR_INSTANT, { message: DATE_OR_INSTANT_MESSAGE })
  startDate!: string;

  /** End of the range: a date (included whole, in the provider's timezone) or a date-time. At most 31 days after startDate. */
  @ApiProperty({ ...exampleFromNow(4) })
  @IsString()
  @Matches(DATE_OR_INSTANT, { message: DATE_OR_INSTANT_MESSAGE })
  endDate!: string;
}

export class AvailabilityQueryDto extends DateRangeQueryDto {
  /** Omit for every active provider's slots. */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  providerId?: string;

  /** An active appointment type of this tenant and mode: its duration, slot grid, policies and providers apply. */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  appointmentTypeId?: string;

  /** Minutes (default 30); with appointmentTypeId, omit it or send the type's. */
  @ApiPropertyOptional({ minimum: 5, maximum: 480, default: 30 })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(5)
  @Max(480)
  duration?: number;
}

export class SlotDto {
  @ApiProperty({ format: 'uuid' })
  providerId!: string;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '15:00') })
  start!: string;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '15:30') })
  end!: string;
}

export class AvailabilityDto {
  @ApiProperty({ type: [SlotDto], description: 'Ascending by start, then providerId' })
  slots!: SlotDto[];
}
