import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsEmail, IsIn, IsObject, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { PATIENT_STATUSES, PATIENT_TYPES } from '../patient-rules';
import type { PatientStatus, PatientType } from '../patient-rules';
import { IsBirthDate, IsPhone, IsTagList } from '../patient-validators';

const NOT_BLANK = /\S/;

/** The body of POST /patients, and one row of a bulk import. */
export class CreatePatientDto {
  /** Your system's id for the patient; unique per tenant and mode (409 external_id_taken). */
  @ApiPropertyOptional({ example: 'crm-004211' })
  @IsOptional()
  @IsString()
  @Length(1, 255)
  externalId?: string;

  @ApiPropertyOptional({ format: 'email', example: 'ada.lovelace@example.com' })
  @IsOptional()
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(320)
  email?: string;

  /** International format; stored and returned in E.164. */
  @ApiPropertyOptional({ example: '+44 20 7946 0000' })
  @IsOptional()
  @IsPhone()
  phone?: string;

  @ApiProperty({ example: 'Ada' })
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  firstName!: string;

  @ApiProperty({ example: 'Lovelace' })
  @IsString()
  @Length(1, 100)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  lastName!: string;

  /** A real past date, not before 1900-01-01. */
  @ApiPropertyOptional({ format: 'date', example: '1985-12-10' })
  @IsOptional()
  @IsBirthDate()
  dateOfBirth?: string;

  /** Free text. */
  @ApiPropertyOptional({ example: 'female' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  gender?: string;

  @ApiPropertyOptional({ example: '12 St James Square, London SW1Y 4JH' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  address?: string;

  @ApiPropertyOptional({ enum: PATIENT_TYPES, default: 'prospect' })
  @IsOptional()
  @IsIn(PATIENT_TYPES)
  patientType?: PatientType;

  @ApiPropertyOptional({ enum: PATIENT_STATUSES, default: 'active' })
  @IsOptional()
  @IsIn(PATIENT_STATUSES)
  patientStatus?: PatientStatus;

  /** Trimmed and de-duplicated; at most 50 tags of 1–64 characters. */
  @ApiPropertyOptional({ type: [String], example: ['vip', 'newsletter'] })
  @IsOptional()
  @IsTagList()
  tags?: string[];

  /**
   * Keys must be defined custom fields (GET /patients/custom-fields); values must fit their type, e.g.
   * `{"insurer": "Bupa"}` once a text field `insurer` is defined. The example is empty so that it works on a
   * tenant that has defined none.
   */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: {} })
  @IsOptional()
  @IsObject()
  customFields?: Record<string, unknown>;

  /** Set by an unsubscribe, or by you. */
  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  emailOptOut?: boolean;

  /** Set by a STOP reply (cleared by START), or by you. */
  @ApiPropertyOptional({ default: false })
  @IsOptional()
  @IsBoolean()
  smsOptOut?: boolean;
}
