import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsEmail, IsIn, IsObject, IsString, Length, Matches, MaxLength } from 'class-validator';
import { WhenClearable, WhenPresent } from '../../../common/http/requests/patch-members';
import { PATIENT_STATUSES, PATIENT_TYPES } from '../patient-rules';
import type { PatientStatus, PatientType } from '../patient-rules';
import { IsBirthDate, IsPhone, IsTagList } from '../patient-validators';

const NOT_BLANK = /\S/;

/**
 * The body of PUT /patients/{id}, which merges: an omitted field is unchanged, `null` clears an optional
 * field, `tags` replaces the list, `customFields` merges per key (`null` removes a key).
 */
export class UpdatePatientDto {
  @ApiPropertyOptional({ nullable: true, type: String, example: 'crm-004211' })
  @WhenClearable()
  @IsString()
  @Length(1, 255)
  externalId?: string | null;

  @ApiPropertyOptional({ format: 'email', nullable: true, type: String, example: 'ada.king@example.com' })
  @WhenClearable()
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(320)
  email?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: '+44 20 7946 0001' })
  @WhenClearable()
  @IsPhone()
  phone?: string | null;

  /** Cannot be cleared. */
  @ApiPropertyOptional({ example: 'Ada' })
  @WhenPresent()
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  firstName?: string;

  /** Cannot be cleared. */
  @ApiPropertyOptional({ example: 'King' })
  @WhenPresent()
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  lastName?: string;

  @ApiPropertyOptional({ format: 'date', nullable: true, type: String, example: '1985-12-10' })
  @WhenClearable()
  @IsBirthDate()
  dateOfBirth?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: 'female' })
  @WhenClearable()
  @IsString()
  @MaxLength(50)
  gender?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: '1 Ockham Park, Surrey KT24 6PU' })
  @WhenClearable()
  @IsString()
  @MaxLength(500)
  address?: string | null;

  @ApiPropertyOptional({ enum: PATIENT_TYPES })
  @WhenPresent()
  @IsIn(PATIENT_TYPES)
  patientType?: PatientType;

  @ApiPropertyOptional({ enum: PATIENT_STATUSES })
  @WhenPresent()
  @IsIn(PATIENT_STATUSES)
  patientStatus?: PatientStatus;

  /** Replaces the list; `null` or `[]` clears it. */
  @ApiPropertyOptional({ type: [String], nullable: true, example: ['vip'] })
  @WhenClearable()
  @IsTagList()
  tags?: string[] | null;

  /**
   * Merged per key; a `null` value removes that key; `null` for the whole object removes every key. Keys must
   * be defined custom fields, e.g. `{"insurer": "AXA"}` once `insurer` is defined (the example is empty so that
   * it works on a tenant that has defined none).
   */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true, example: {} })
  @WhenClearable()
  @IsObject()
  customFields?: Record<string, unknown> | null;

  @ApiPropertyOptional({ example: false })
  @WhenPresent()
  @IsBoolean()
  emailOptOut?: boolean;

  @ApiPropertyOptional({ example: false })
  @WhenPresent()
  @IsBoolean()
  smsOptOut?: boolean;
}
