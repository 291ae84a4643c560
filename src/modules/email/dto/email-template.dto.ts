import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';
import { PageOf } from '../../../common/http/lists/pagination';
import { WhenClearable, WhenPresent } from '../../../common/http/requests/patch-members';

const NOT_BLANK = /\S/;
/** Long enough for a designed HTML email; the body limit (1 MiB) bounds the request anyway. */
export const MAX_CONTENT_LENGTH = 100_000;

const EXAMPLE = {
  name: 'Appointment reminder',
  subject: 'See you soon, {{patient.firstName}}',
  htmlContent: '<p>Hello {{patient.firstName}},</p><p>Your appointment at {{practice.name}} is on {{appointmentDate}}.</p>',
  textContent: 'Hello {{patient.firstName}}, your appointment at {{practice.name}} is on {{appointmentDate}}.',
};

/** The body of POST /emails/templates. */
export class CreateEmailTemplateDto {
  @ApiProperty({ example: EXAMPLE.name })
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name!: string;

  /** Handlebars; printed as it is (no HTML escaping), on one line. */
  @ApiProperty({ example: EXAMPLE.subject })
  @IsString()
  @Length(1, 998)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  subject!: string;

  /** Handlebars; every `{{value}}` is HTML-escaped. At least one of htmlContent and textContent. */
  @ApiPropertyOptional({ example: EXAMPLE.htmlContent })
  @IsOptional()
  @IsString()
  @Length(1, MAX_CONTENT_LENGTH)
  htmlContent?: string;

  /** Handlebars; the plain-text part. */
  @ApiPropertyOptional({ example: EXAMPLE.textContent })
  @IsOptional()
  @IsString()
  @Length(1, MAX_CONTENT_LENGTH)
  textContent?: string;
}

/** The body of PATCH /emails/templates/{id}: omitted members are unchanged; `null` removes a part (one must remain). */
export class UpdateEmailTemplateDto {
  @ApiPropertyOptional({ example: EXAMPLE.name })
  @WhenPresent()
  @IsString()
  @Length(1, 200)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  name?: string;

  @ApiPropertyOptional({ example: EXAMPLE.subject })
  @WhenPresent()
  @IsString()
  @Length(1, 998)
  @Matches(NOT_BLANK, { message: 'must not be blank' })
  subject?: string;

  @ApiPropertyOptional({ example: EXAMPLE.htmlContent, nullable: true, type: String })
  @WhenClearable()
  @IsString()
  @Length(1, MAX_CONTENT_LENGTH)
  htmlContent?: string | null;

  @ApiPropertyOptional({ example: EXAMPLE.textContent, nullable: true, type: String })
  @WhenClearable()
  @IsString()
  @Length(1, MAX_CONTENT_LENGTH)
  textContent?: string | null;
}

export class EmailTemplateDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: EXAMPLE.name })
  name!: string;

  @ApiProperty({ example: EXAMPLE.subject })
  subject!: string;

  @ApiProperty({ nullable: true, type: String, example: EXAMPLE.htmlContent })
  htmlContent!: string | null;

  @ApiProperty({ nullable: true, type: String, example: EXAMPLE.textContent })
  textContent!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class EmailTemplateListDto extends PageOf(EmailTemplateDto, 'templates') {}

/** The body of POST /emails/templates/{id}/preview. */
export class PreviewEmailTemplateDto {
  /** Renders `{{patient.*}}` from this patient (of the caller's tenant and mode). */
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a patient id' })
  patientId?: string;

  /** The caller's placeholders (`{{appointmentDate}}`). */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { appointmentDate: 'Monday 24 November, 09:30' } })
  @IsOptional()
  @IsObject()
  variables?: Record<string, unknown>;
}

export class EmailPreviewDto {
  /** The patient it was rendered for (null without one); the preview is listed in that patient's access log. */
  @ApiProperty({ format: 'uuid', nullable: true, type: String, example: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e70' })
  patientId!: string | null;

  @ApiProperty({ example: 'See you soon, Ada' })
  subject!: string;

  @ApiProperty({
    nullable: true,
    type: String,
    example: '<p>Hello Ada,</p><p>Your appointment at Acme Clinic is on Monday 24 November, 09:30.</p>',
  })
  htmlContent!: string | null;

  @ApiProperty({ nullable: true, type: String, example: 'Hello Ada, your appointment at Acme Clinic is on Monday 24 November, 09:30.' })
  textContent!: string | null;
}
