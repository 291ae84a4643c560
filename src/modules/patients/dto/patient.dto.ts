import { ApiProperty } from '@nestjs/swagger';
import { PageOf } from '../../../common/http/lists/pagination';
import { PATIENT_STATUSES, PATIENT_TYPES } from '../patient-rules';
import type { PatientStatus, PatientType } from '../patient-rules';

/**
 * A patient as embedded in an appointment or an event for a key without the `patients:read` scope: who it
 * is and how to reach them, nothing more.
 */
export class PatientSummaryDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'Ada' })
  firstName!: string;

  @ApiProperty({ example: 'Lovelace' })
  lastName!: string;

  @ApiProperty({ format: 'email', nullable: true, type: String })
  email!: string | null;

  @ApiProperty({ nullable: true, type: String, example: '+442079460000' })
  phone!: string | null;
}

/** A patient record. Optional fields are `null` when unset. */
export class PatientDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ nullable: true, type: String, example: 'crm-004211' })
  externalId!: string | null;

  /** Assigned by the service: 8 characters without look-alikes (no 0/O, 1/I), unique in the tenant. */
  @ApiProperty({ example: 'K7MX4RQ2' })
  joiningCode!: string;

  @ApiProperty({ format: 'email', nullable: true, type: String })
  email!: string | null;

  /** E.164. */
  @ApiProperty({ nullable: true, type: String, example: '+442079460000' })
  phone!: string | null;

  @ApiProperty({ example: 'Ada' })
  firstName!: string;

  @ApiProperty({ example: 'Lovelace' })
  lastName!: string;

  @ApiProperty({ format: 'date', nullable: true, type: String, example: '1985-12-10' })
  dateOfBirth!: string | null;

  @ApiProperty({ nullable: true, type: String })
  gender!: string | null;

  @ApiProperty({ nullable: true, type: String })
  address!: string | null;

  @ApiProperty({ enum: PATIENT_TYPES })
  patientType!: PatientType;

  @ApiProperty({ enum: PATIENT_STATUSES })
  patientStatus!: PatientStatus;

  @ApiProperty({ type: [String] })
  tags!: string[];

  @ApiProperty({ type: 'object', additionalProperties: true })
  customFields!: Record<string, unknown>;

  /** True: no email is sent to this patient (`suppressed`); set by you or by an unsubscribe link. */
  emailOptOut!: boolean;

  /** True: no SMS is sent to this patient (`suppressed`); set by you or by a STOP reply. */
  smsOptOut!: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class PatientListDto extends PageOf(PatientDto, 'patients') {}

export class TagCountDto {
  @ApiProperty({ example: 'vip' })
  name!: string;

  @ApiProperty({ example: 42 })
  count!: number;
}

export class TagListDto {
  @ApiProperty({ type: [TagCountDto] })
  tags!: TagCountDto[];
}
