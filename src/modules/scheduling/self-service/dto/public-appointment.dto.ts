import { ApiProperty } from '@nestjs/swagger';
import { APPOINTMENT_STATUSES } from '../../appointments/transitions';
import type { AppointmentStatus } from '../../appointments/transitions';
import { exampleFromNow } from '../../../../common/http/openapi/example-dates';
import { IsInstant } from '../../is-instant';
import { DateRangeQueryDto } from '../../availability/dto/availability.dto';

/** What a patient's manage link shows: the visit, never the patient's other data. */
export class PublicAppointmentDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: APPOINTMENT_STATUSES })
  status!: AppointmentStatus;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(2, '15:00') })
  datetime!: string;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(2, '16:00') })
  end!: string;

  @ApiProperty({ example: 60 })
  durationMinutes!: number;

  /** The provider's IANA zone, in which the practice's times are written. */
  @ApiProperty({ example: 'America/New_York' })
  timezone!: string;

  @ApiProperty({ example: 'Dr. Maya Chen' })
  providerName!: string;

  @ApiProperty({ nullable: true, type: String, example: 'New patient' })
  appointmentTypeName!: string | null;

  @ApiProperty({ example: 'Riverside Clinic' })
  practiceName!: string;

  @ApiProperty()
  canConfirm!: boolean;

  @ApiProperty()
  canCancel!: boolean;

  @ApiProperty()
  canReschedule!: boolean;

  /** After it, the link can no longer cancel or reschedule (start − the type's cancellation window; 24 h without a type). */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(1, '15:00') })
  changeDeadline!: string;
}

export class PublicRescheduleDto {
  /** The new start, one of GET …/availability's slots, with Z or an offset. */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(3, '15:00') })
  @IsInstant()
  datetime!: string;
}

export class PublicManageAvailabilityQueryDto extends DateRangeQueryDto {}

export class PublicManageSlotDto {
  @ApiProperty({ format: 'date-time', ...exampleFromNow(3, '15:00') })
  start!: string;

  @ApiProperty({ format: 'date-time', ...exampleFromNow(3, '16:00') })
  end!: string;
}

export class PublicManageAvailabilityDto {
  /** The appointment's provider's free slots for its type (or length), ascending. */
  @ApiProperty({ type: [PublicManageSlotDto] })
  slots!: PublicManageSlotDto[];
}
