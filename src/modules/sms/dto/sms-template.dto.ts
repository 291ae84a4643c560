import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageOf } from '../../../common/http/lists/pagination';
import { WhenPresent } from '../../../common/http/requests/patch-members';
import { IsObject, IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';

/** Ten GSM-7 parts of 160; what most SMS providers accept in one request. */
export const SMS_BODY_MAX_LENGTH = 1600;

const NOT_BLANK = /\S/;

const BODY_EXAMPLE =
  'Hi {{patient.firstName}}, this is {{practice.name}}: your appointment is on {{appointmentDate}}. Reply STOP to opt out.';
const BODY_DOC = `A Handlebars template of 1–${SMS_BODY_MAX_LENGTH} characters: \`{{patient.firstName}}\`, \`{{patient.lastName}}\`, \`{{patient.fullName}}\`, \`{{practice.name}}\` (practice settings) and the caller's variables; \`#if\`, \`#unless\`, \`#each\`, \`#with\` and \`lookup\`, no partials. A body that does not compile is 400 naming \`body\`.`;

/** The body of POST /sms/templates. */
export class CreateSmsTemplateDto {
  @ApiProperty({ example: 'Appointment reminder', minLength: 1, maxLength: 200 })
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name!: string;

  @ApiProperty({ description: BODY_DOC, example: BODY_EXAMPLE, minLength: 1, maxLength: SMS_BODY_MAX_LENGTH })
  @IsString()
  @Length(1, SMS_BODY_MAX_LENGTH)
  body!: string;
}

/** The body of PATCH /sms/templates/{id}: omitted members are unchanged. */
export class UpdateSmsTemplateDto {
  @ApiPropertyOptional({ example: 'Appointment reminder (short)', minLength: 1, maxLength: 200 })
  @WhenPresent()
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name?: string;

  @ApiPropertyOptional({
    description: BODY_DOC,
    example: 'Hi {{patient.firstName}}, see you {{appointmentDate}}!',
    minLength: 1,
    maxLength: SMS_BODY_MAX_LENGTH,
  })
  @WhenPresent()
  @IsString()
  @Length(1, SMS_BODY_MAX_LENGTH)
  body?: string;
}

export class SmsTemplateDto {
  @ApiProperty({ format: 'uuid', example: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e6f' })
  id!: string;

  @ApiProperty({ example: 'Appointment reminder' })
  name!: string;

  @ApiProperty({ example: BODY_EXAMPLE })
  body!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T09:30:00.000Z' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time', example: '2026-11-21T09:30:00.000Z' })
  updatedAt!: string;
}

export class SmsTemplateListDto extends PageOf(SmsTemplateDto, 'templates') {}

/** The body of POST /sms/templates/{id}/preview. */
export class PreviewSmsTemplateDto {
  /** Render for this patient of the caller's tenant and mode (needs the `patients:read` scope too). */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a patient id' })
  patientId?: string;

  /** Variables the template reads besides `patient` and `practice`. */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { appointmentDate: '2 December at 09:30' } })
  @IsOptional()
  @IsObject()
  variables?: Record<string, unknown>;
}

export class SmsPreviewDto {
  /** The patient it was rendered for (null without one); the preview is listed in that patient's access log. */
  @ApiProperty({ format: 'uuid', nullable: true, type: String, example: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e70' })
  patientId!: string | null;

  /** The rendered text, as it would be sent. */
  @ApiProperty({ example: 'Hi Ada, this is Acme Clinic: your appointment is on 2 December at 09:30. Reply STOP to opt out.' })
  body!: string;

  /** GSM-7 when every character is in the GSM 03.38 alphabet (or its extension table), else UCS-2. */
  @ApiProperty({ enum: ['GSM-7', 'UCS-2'], example: 'GSM-7' })
  encoding!: 'GSM-7' | 'UCS-2';

  /** Messages the text takes (what SMS senders bill): GSM-7 160 in one, 153 per part; UCS-2 70 / 67. */
  @ApiProperty({ type: 'integer', example: 1 })
  segments!: number;

  /** Septets (GSM-7; extension characters such as € count 2) or UTF-16 code units (UCS-2). */
  @ApiProperty({ type: 'integer', example: 96 })
  units!: number;
}
