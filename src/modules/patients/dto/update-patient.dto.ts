import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsEmail, IsIn, IsObject, IsString, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { PATIENT_STATUSES, PATIENT_TYPES } from '../patient-rules';
import type { PatientStatus, PatientType } from '../patient-rules';
import { IsBirthDate, IsPhone, IsTagList } from '../patient-validators';

const NOT_BLANK = /\S/;
/** Validate when present; `null` is validated too (and so refused) for fields that cannot be cleared. */
const present = (field: string) => ValidateIf((o: Record<string, unknown>) => o[field] !== undefined);
/** Validate when present and not null; `null` clears the field. */
const clearable = (field: string) => ValidateIf((o: Record<string, unknown>) => o[field] !== undefined && o[field] !== null);

/**
 * The body of PUT /patients/{id}, which merges: an omitted field is unchanged, `null` clears an optional
 * field, `tags` replaces the list, `customFields` merges per key (`null` removes a key).
 */
export class UpdatePatientDto {
  @ApiPropertyOptional({ nullable: true, type: String, example: 'crm-004211' })
  @clearable('externalId')
  @IsString()
  @Length(1, 255)
  externalId?: string | null;

  @ApiPropertyOptional({ format: 'email', nullable: true, type: String, example: 'ada.king@example.com' })
  @clearable('email')
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(320)
  email?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: '+44 20 7946 0001' })
  @clearable('phone')
  @IsPhone()
  phone?: string | null;

  /** Cannot be cleared. */
  @ApiPropertyOptional({ example: 'Ada' })
  @present('firstName')
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  firstName?: string;

  /** Cannot be cleared. */
  @ApiPropertyOptional({ example: 'King' })
  @present('lastName')
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  lastName?: string;

  @ApiPropertyOptional({ format: 'date', nullable: true, type: String, example: '1985-12-10' })
  @clearable('dateOfBirth')
  @IsBirthDate()
  dateOfBirth?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: 'female' })
  @clearable('gender')
  @IsString()
  @MaxLength(50)
  gender?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, example: '1 Ockham Park, Surrey KT24 6PU' })
  @clearable('address')
  @IsString()
  @MaxLength(500)
  address?: string | null;

  @ApiPropertyOptional({ enum: PATIENT_TYPES })
  @present('patientType')
  @IsIn(PATIENT_TYPES)
  patientType?: PatientType;

  @ApiPropertyOptional({ enum: PATIENT_STATUSES })
  @present('patientStatus')
  @IsIn(PATIENT_STATUSES)
  patientStatus?: PatientStatus;

  /** Replaces the list; `null` or `[]` clears it. */
  @ApiPropertyOptional({ type: [String], nullable: true, example: ['vip'] })
  @clearable('tags')
  @IsTagList()
  tags?: string[] | null;

  /** Merged per key; a `null` value removes that key; `null` for the whole object removes every key. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, nullable: true, example: { insurer: 'AXA' } })
  @clearable('customFields')
  @IsObject()
  customFields?: Record<string, unknown> | null;

  @ApiPropertyOptional({ example: false })
  @present('emailOptOut')
  @IsBoolean()
  emailOptOut?: boolean;
}
