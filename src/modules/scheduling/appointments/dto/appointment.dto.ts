import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';
import { PageOf, PageQueryDto } from '../../../../common/http/lists/pagination';
import { PatientDto, PatientSummaryDto } from '../../../patients';
import { REMINDER_CHANNELS } from '../appointment-policies';
import type { ReminderChannel } from '../appointment-policies';
import { REMINDER_STATUSES } from '../../reminders/entities/appointment-reminder.entity';
import type { ReminderStatus } from '../../reminders/entities/appointment-reminder.entity';
import { APPOINTMENT_STATUSES } from '../transitions';
import type { AppointmentStatus } from '../transitions';
import { IsInstant } from '../../is-instant';
import { UnlessHeld } from '../../holds/unless-held';
import { WhenClearable, WhenPresent } from '../../../../common/http/requests/patch-members';
import { exampleFromNow } from '../../../../common/http/openapi/example-dates';

export class BookAppointmentDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  patientId!: string;

  /** May be omitted with holdId (sent, it must be the hold's). */
  @ApiProperty({ format: 'uuid' })
  @UnlessHeld()
  @IsUUID()
  // Documented as required (the slot form); absent only beside holdId, where HoldsService reads it as optional.
  providerId!: string;

  /** The start, with Z or an offset. May be omitted with holdId (sent, it must be the hold's). */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '15:00') })
  @UnlessHeld()
  @IsInstant()
  datetime!: string;

  /**
   * An active hold of this tenant and mode (POST /scheduling/holds), whose time is booked: the hold names the
   * provider, time and type, so providerId and datetime may be omitted and the type, duration and
   * overridePolicies must be.
   */
  @ApiPropertyOptional({ format: 'uuid' })
  @WhenPresent()
  @IsUUID()
  holdId?: string;

  /**
   * An active appointment type of this tenant and mode: its duration, policies and providers apply, and the
   * appointment's `type` is its name.
   */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  appointmentTypeId?: string;

  /** Minutes (default 30); with appointmentTypeId, omit it or send the type's. */
  @ApiPropertyOptional({ minimum: 5, maximum: 480, default: 30 })
  @IsOptional()
  @IsInt()
  @Min(5)
  @Max(480)
  duration?: number;

  /**
   * Book off the type's slot grid and outside its minimum notice, horizon, buffers and daily cap (never onto
   * another appointment's time, outside working hours or in time off).
   */
  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  overridePolicies?: boolean;

  /** Free text, e.g. consultation, follow-up; with appointmentTypeId, the type's name instead. */
  @ApiPropertyOptional({ example: 'consultation' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  type?: string;

  @ApiPropertyOptional({ example: 'First visit' })
  @IsOptional()
  @IsString()
  @MaxLength(10000)
  notes?: string;

  /** Send the patient a booking notice by the appointment type's notice channels (email by default, with the .ics). */
  @ApiPropertyOptional({ default: false, example: false })
  @IsOptional()
  @IsBoolean()
  notifyPatient?: boolean;
}

/** PATCH: a status change (per the transition table), a reschedule (datetime, duration), notes, type. */
export class UpdateAppointmentDto {
  @ApiPropertyOptional({ enum: APPOINTMENT_STATUSES, example: 'confirmed' })
  @WhenPresent()
  @IsIn(APPOINTMENT_STATUSES)
  status?: AppointmentStatus;

  @ApiPropertyOptional({ format: 'date-time', ...exampleFromNow(7, '15:00') })
  @WhenPresent()
  @IsInstant()
  datetime?: string;

  @ApiPropertyOptional({ minimum: 5, maximum: 480, example: 45 })
  @WhenPresent()
  @IsInt()
  @Min(5)
  @Max(480)
  duration?: number;

  @ApiPropertyOptional({ nullable: true, type: String, example: 'follow-up' })
  @WhenClearable()
  @IsString()
  @MaxLength(100)
  type?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: 'Moved at the patient’s request' })
  @WhenClearable()
  @IsString()
  @MaxLength(10000)
  notes?: string | null;

  /** Reschedule off the appointment type's slot grid and outside its minimum notice, horizon, buffers and daily cap (never onto an overlap). */
  @ApiPropertyOptional({ example: false })
  @WhenPresent()
  @IsBoolean()
  overridePolicies?: boolean;

  /** Send the patient a notice of a reschedule or cancellation (by the appointment type's notice channels). Other changes send none. */
  @ApiPropertyOptional({ default: false, example: false })
  @WhenPresent()
  @IsBoolean()
  notifyPatient?: boolean;
}

export class ListAppointmentsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: APPOINTMENT_STATUSES })
  @IsOptional()
  @IsIn(APPOINTMENT_STATUSES)
  status?: AppointmentStatus;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  providerId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  patientId?: string;

  /** Appointments starting at or after this instant. */
  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsInstant()
  startDate?: string;

  /** Appointments starting before this instant. */
  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptional()
  @IsInstant()
  endDate?: string;
}

/** One reminder of an appointment (see docs/reminders.md). */
export class AppointmentReminderDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ enum: REMINDER_CHANNELS, example: 'sms' })
  channel!: ReminderChannel;

  /** Minutes before the start, from the appointment type's rule. */
  @ApiProperty({ type: 'integer', example: 1440 })
  offsetMinutes!: number;

  /** When it goes (or went) out: start − offsetMinutes, or 08:00 in the provider's zone for a text due in quiet hours (21:00–08:00). */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(-1, '15:00') })
  sendAt!: string;

  /**
   * `scheduled` until its time; then `sent` (its message was queued, see messageId), `suppressed` (the patient opted
   * out, or has no address or phone) or `failed` (its template is gone, or it cannot be rendered). `skipped`: its
   * time had passed at booking, or quiet hours would push it past the start. `cancelled`: the appointment was
   * cancelled, completed, marked no-show or rescheduled (a reschedule plans new ones).
   */
  @ApiProperty({ enum: REMINDER_STATUSES, example: 'scheduled' })
  status!: ReminderStatus;

  /** Why it was skipped, suppressed, cancelled or failed: `past`, `quiet_hours`, `opted_out`, `no_email`, `no_phone`, `phone_not_textable`, `template_missing`, `rescheduled`, `appointment_cancelled`, … */
  @ApiProperty({ nullable: true, type: String, example: null })
  reason!: string | null;

  /** The email or SMS message it queued (GET /emails/messages/{id} or /sms/messages/{id} by channel). */
  @ApiProperty({ nullable: true, type: String, format: 'uuid', example: null })
  messageId!: string | null;
}

@ApiExtraModels(PatientDto, PatientSummaryDto)
export class AppointmentDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ format: 'uuid' })
  patientId!: string;

  @ApiProperty({ format: 'uuid' })
  providerId!: string;

  /** The start. */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '15:00') })
  datetime!: string;

  /** Minutes. */
  @ApiProperty({ example: 30 })
  duration!: number;

  /** datetime + duration. */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(0, '15:30') })
  end!: string;

  @ApiProperty({ enum: APPOINTMENT_STATUSES })
  status!: AppointmentStatus;

  @ApiProperty({ nullable: true, type: String })
  type!: string | null;

  @ApiProperty({ nullable: true, type: String })
  notes!: string | null;

  @ApiProperty({ nullable: true, type: String, format: 'uuid' })
  appointmentTypeId!: string | null;

  /** The recurring series it is an occurrence of (GET /scheduling/series/{id}); null for a single booking. */
  @ApiProperty({ nullable: true, type: String, format: 'uuid', example: null })
  seriesId!: string | null;

  /** When it was confirmed (by the practice, the patient's link or an SMS reply). */
  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  confirmedAt!: string | null;

  @ApiProperty({ nullable: true, type: String, format: 'date-time' })
  cancelledAt!: string | null;

  /** The patient's self-service link (no key): view, confirm, cancel, reschedule. The same for the appointment's whole life. */
  @ApiProperty({ example: 'https://clinic.example/api/v1/public/appointments/7kQ2xVb9LmN4pR8s' })
  manageUrl!: string;

  /** Planned from the appointment type's reminders when it is booked (none without a type), in the order they go out. */
  @ApiProperty({ type: [AppointmentReminderDto] })
  reminders!: AppointmentReminderDto[];

  /** The whole patient for a key with the `patients:read` scope; otherwise only `{ id, firstName, lastName, email, phone }`. */
  @ApiProperty({ anyOf: [{ $ref: getSchemaPath(PatientDto) }, { $ref: getSchemaPath(PatientSummaryDto) }] })
  patient!: PatientDto | PatientSummaryDto;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class AppointmentListDto extends PageOf(AppointmentDto, 'appointments', 'Ascending by datetime, then id') {}
