import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsUUID, Max, Min } from 'class-validator';
import { WhenPresent } from '../../../../common/http/requests/patch-members';
import { exampleFromNow } from '../../../../common/http/openapi/example-dates';
import { IsInstant } from '../../is-instant';
import { HOLD_STATUSES } from '../entities/hold.entity';
import type { HoldStatus } from '../entities/hold.entity';

export const HOLD_TTL = { min: 30, max: 1800, default: 300 } as const;

/** The body of POST /scheduling/holds: a provider's slot, of an appointment type or a bare duration (exactly one). */
export class CreateHoldDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  providerId!: string;

  /** The start, with Z or an offset; checked as a booking of it would be. */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '15:30') })
  @IsInstant()
  datetime!: string;

  /** An active appointment type of this tenant and mode that the provider offers (its duration and policies); or send duration. */
  @ApiPropertyOptional({ format: 'uuid' })
  @WhenPresent()
  @IsUUID()
  appointmentTypeId?: string;

  /** Minutes; or send appointmentTypeId. */
  @ApiPropertyOptional({ minimum: 5, maximum: 480 })
  @WhenPresent()
  @IsInt()
  @Min(5)
  @Max(480)
  duration?: number;

  /** How long the time is kept, in seconds. */
  @ApiPropertyOptional({ minimum: HOLD_TTL.min, maximum: HOLD_TTL.max, default: HOLD_TTL.default })
  @WhenPresent()
  @IsInt()
  @Min(HOLD_TTL.min)
  @Max(HOLD_TTL.max)
  ttlSeconds?: number;
}

export class HoldDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  providerId!: string;

  /** The start. */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '15:30') })
  datetime!: string;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '16:00') })
  end!: string;

  @ApiProperty({ nullable: true, type: String, format: 'uuid' })
  appointmentTypeId!: string | null;

  /** When the time is free again unless booked (on the tenant's clock: a test clock in test mode). */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '09:05') })
  expiresAt!: string;

  /** `active` while it keeps its time; `consumed` once booked (see appointmentId), `released` by DELETE, `expired` from expiresAt on. */
  @ApiProperty({ enum: HOLD_STATUSES, example: 'active' })
  status!: HoldStatus;

  /** The appointment that booked it. */
  @ApiProperty({ nullable: true, type: String, format: 'uuid', example: null })
  appointmentId!: string | null;
}
