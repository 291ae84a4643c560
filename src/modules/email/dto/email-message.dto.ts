import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { MESSAGE_KINDS, MessageListQueryDto } from '../../../common/messaging';
import type { MessageKind } from '../../../common/messaging';
import { PageOf } from '../../../common/http/lists/pagination';
import { EMAIL_STATUSES, EMAIL_TRANSPORTS } from '../entities/email-message.entity';
import type { EmailStatus, EmailTransportName } from '../entities/email-message.entity';

/** A message, what it said while its bodies are kept, and where its sending stands. */
export class EmailMessageDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /**
   * What it is for: a `send` through POST /emails/send, a `sequence` step, an appointment `reminder`, a
   * `booking_notice`, a `waitlist_offer`.
   */
  @ApiProperty({ enum: MESSAGE_KINDS, example: 'reminder' })
  kind!: MessageKind;

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

  /** The appointment a reminder or notice is about. */
  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  appointmentId!: string | null;

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

  /**
   * How it was sent: `smtp` (through SMTP_URL, or TEST_SMTP_URL for a test-mode message), `log` (a live message
   * while SMTP_URL is not configured) or `test` (a test-mode message captured: it reached nobody). Null until sent.
   */
  @ApiProperty({ enum: EMAIL_TRANSPORTS, nullable: true, example: 'smtp' })
  transport!: EmailTransportName | null;

  /** The text part as rendered when it was queued; null without one, or once retention cleared the bodies. */
  @ApiProperty({ nullable: true, type: String, example: 'Hello Ada,' })
  textBody!: string | null;

  /** The HTML part as rendered when it was queued; null without one, or once retention cleared the bodies. */
  @ApiProperty({ nullable: true, type: String, example: '<p>Hello Ada,</p>' })
  htmlBody!: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  sentAt!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

/**
 * One message with its rendered content. The stored bodies of a sent message are cleared
 * EMAIL_BODY_RETENTION_DAYS after it was sent: from then on `htmlBody` and `textBody` are both null and
 * `bodyClearedAt` says when; the metadata (recipient, subject, status, times) stays.
 */
export class EmailMessageDetailDto extends EmailMessageDto {
  /** The same as `htmlBody`, under the name this answer first had. */
  @ApiProperty({ nullable: true, type: String, example: '<p>Hello Ada,</p>', deprecated: true })
  htmlContent!: string | null;

  /** The same as `textBody`, under the name this answer first had. */
  @ApiProperty({ nullable: true, type: String, example: 'Hello Ada,', deprecated: true })
  textContent!: string | null;

  /** When the stored bodies were cleared by retention (EMAIL_BODY_RETENTION_DAYS after sending); null while they are kept. */
  @ApiProperty({ format: 'date-time', nullable: true, type: String, example: null })
  bodyClearedAt!: string | null;
}

export class EmailMessageListDto extends PageOf(EmailMessageDto, 'messages') {}

/** GET /emails/messages: a page, newest first, narrowed by any of the filters. */
export class ListEmailMessagesQueryDto extends MessageListQueryDto {
  @ApiPropertyOptional({ enum: EMAIL_STATUSES })
  @IsOptional()
  @IsIn(EMAIL_STATUSES)
  status?: EmailStatus;

  /** `test`: the messages test mode captured. */
  @ApiPropertyOptional({ enum: EMAIL_TRANSPORTS })
  @IsOptional()
  @IsIn(EMAIL_TRANSPORTS)
  transport?: EmailTransportName;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a sequence id' })
  sequenceId?: string;
}
