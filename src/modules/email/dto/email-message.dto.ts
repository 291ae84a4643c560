import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { PageOf, PageQueryDto } from '../../../common/http/pagination';
import { EMAIL_STATUSES, EMAIL_TRANSPORTS } from '../entities/email-message.entity';
import type { EmailStatus, EmailTransportName } from '../entities/email-message.entity';

/** A message and where its sending stands. */
export class EmailMessageDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /**
   * `queued` (waiting, or between retries), `sending` (a worker is sending it; sent again if that worker
   * stopped), `sent` (the SMTP server accepted it), `failed` (see lastError) or `suppressed` (the patient
   * unsubscribed before it went).
   */
  @ApiProperty({ enum: EMAIL_STATUSES, example: 'sent' })
  status!: EmailStatus;

  @ApiProperty({ format: 'email', example: 'ada@example.com' })
  to!: string;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  patientId!: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  templateId!: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  sequenceId!: string | null;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  enrollmentId!: string | null;

  @ApiProperty({ type: 'integer', nullable: true, example: null })
  step!: number | null;

  @ApiProperty({ example: 'See you soon, Ada' })
  subject!: string;

  /** Tries: each time a worker started sending it. */
  @ApiProperty({ type: 'integer', example: 1 })
  attempts!: number;

  @ApiProperty({ nullable: true, type: String, example: null })
  lastError!: string | null;

  /** The id the SMTP server gave the message in its reply, when it named one. */
  @ApiProperty({ nullable: true, type: String, example: '4BqVZS1xz1' })
  smtpMessageId!: string | null;

  /** How it was sent: `smtp`, or `log` when SMTP_URL is not configured. Null until sent. */
  @ApiProperty({ enum: EMAIL_TRANSPORTS, nullable: true, example: 'smtp' })
  transport!: EmailTransportName | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  sentAt!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

/**
 * One message with its rendered content. The stored bodies of a sent message are cleared
 * EMAIL_BODY_RETENTION_DAYS after it was sent: from then on `htmlContent` and `textContent` are both null and
 * `bodyClearedAt` says when; the metadata (recipient, subject, status, times) stays.
 */
export class EmailMessageDetailDto extends EmailMessageDto {
  /** Null when the message has no HTML part, or once its bodies were cleared (see `bodyClearedAt`). */
  @ApiProperty({ nullable: true, type: String, example: '<p>Hello Ada,</p>' })
  htmlContent!: string | null;

  /** Null when the message has no text part, or once its bodies were cleared (see `bodyClearedAt`). */
  @ApiProperty({ nullable: true, type: String, example: 'Hello Ada,' })
  textContent!: string | null;

  /** When the stored bodies were cleared by retention (EMAIL_BODY_RETENTION_DAYS after sending); null while they are kept. */
  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: null })
  bodyClearedAt!: string | null;
}

export class EmailMessageListDto extends PageOf(EmailMessageDto, 'messages') {}

/** GET /emails/messages: a page, newest first, narrowed by any of the filters. */
export class ListEmailMessagesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a patient id' })
  patientId?: string;

  @ApiPropertyOptional({ enum: EMAIL_STATUSES })
  @IsOptional()
  @IsIn(EMAIL_STATUSES)
  status?: EmailStatus;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a sequence id' })
  sequenceId?: string;
}
