import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsObject, IsOptional, IsString, IsUUID, Length, Matches, MaxLength } from 'class-validator';
import { MAX_CONTENT_LENGTH } from './email-template.dto';

/**
 * The body of POST /emails/send: a recipient (`patientId` or `to`, one of them) and a content (`templateId`,
 * or `subject` with `htmlContent` and/or `textContent`), rendered with `templateVariables`.
 */
export class SendEmailDto {
  /** A patient of the caller's tenant and mode, with an email address. Their messages carry an unsubscribe link. */
  @ApiPropertyOptional({ format: 'uuid', example: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a patient id' })
  patientId?: string;

  /** A bare address, when the recipient is not a patient. */
  @ApiPropertyOptional({ format: 'email', example: 'ada@example.com' })
  @IsOptional()
  @IsEmail({}, { message: 'must be an email address' })
  @MaxLength(320)
  to?: string;

  @ApiPropertyOptional({ format: 'uuid', example: '0193a5a9-1b2c-7d3e-8f40-5a6b7c8d9e0f' })
  @IsOptional()
  @IsUUID('all', { message: 'must be an email template id' })
  templateId?: string;

  /** Without templateId: a one-off message's subject (Handlebars, like a template's). */
  @ApiPropertyOptional({ example: 'Your results are ready, {{patient.firstName}}' })
  @IsOptional()
  @IsString()
  @Length(1, 998)
  @Matches(/\S/, { message: 'must not be blank' })
  subject?: string;

  @ApiPropertyOptional({ example: '<p>Hello {{patient.firstName}}, your results are ready.</p>' })
  @IsOptional()
  @IsString()
  @Length(1, MAX_CONTENT_LENGTH)
  htmlContent?: string;

  @ApiPropertyOptional({ example: 'Hello {{patient.firstName}}, your results are ready.' })
  @IsOptional()
  @IsString()
  @Length(1, MAX_CONTENT_LENGTH)
  textContent?: string;

  /** The caller's placeholders (`{{appointmentDate}}`). */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { appointmentDate: 'Monday 24 November, 09:30' } })
  @IsOptional()
  @IsObject()
  templateVariables?: Record<string, unknown>;
}

export class EmailSendAcceptedDto {
  /** Also the id of the BullMQ job that sends it. Follow it at GET /emails/messages/{messageId}. */
  @ApiProperty({ format: 'uuid' })
  messageId!: string;

  @ApiProperty({ enum: ['queued'], example: 'queued' })
  status!: 'queued';
}
