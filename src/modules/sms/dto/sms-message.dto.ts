import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsObject, IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';
import { PageOf } from '../../../common/http/lists/pagination';
import { MESSAGE_KINDS, MessageListQueryDto } from '../../../common/messaging';
import type { MessageKind } from '../../../common/messaging';
import { SMS_STATUSES, SMS_TRANSPORTS } from '../entities/sms-message.entity';
import type { SmsStatus, SmsTransportName } from '../entities/sms-message.entity';
import { IsTextableNumber } from '../textable-numbers';
import { SMS_BODY_MAX_LENGTH } from './sms-template.dto';

/** E.164: a plus, a country code and the number, digits only. */
export const E164_PATTERN = /^\+[1-9]\d{6,14}$/;

/**
 * The body of POST /sms/send: a recipient (`patientId` or `to`, one of them) and a content (`templateId` or
 * `body`, one of them), rendered with `templateVariables`.
 */
export class SendSmsDto {
  /**
   * A patient of the caller's tenant and mode, with a phone number the practice may text (as `to`; else 400
   * naming `patientId`). A patient who opted out gets nothing: the message ends `suppressed`.
   */
  @ApiPropertyOptional({ format: 'uuid', example: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40' })
  @IsOptional()
  @IsUUID('all', { message: 'must be a patient id' })
  patientId?: string;

  /**
   * A bare number in E.164 form, when the recipient is not a patient: a mobile or fixed-line number
   * (libphonenumber-js, full metadata). Premium-rate, shared-cost, toll-free, VoIP, personal, pager and
   * voicemail numbers, satellite and international network numbers, numbers in no assigned range, and numbers
   * of a country outside practice settings `smsCountries` (default: the sending number's) are 400 naming `to`.
   */
  @ApiPropertyOptional({ example: '+14155552671' })
  @IsOptional()
  @IsString()
  @Matches(E164_PATTERN, { message: 'must be a phone number in E.164 form (+14155552671)' })
  @IsTextableNumber()
  to?: string;

  @ApiPropertyOptional({ format: 'uuid', example: '0193a5b2-7c1e-7d40-9a3e-2f0c1b4d5e6f' })
  @IsOptional()
  @IsUUID('all', { message: 'must be an SMS template id' })
  templateId?: string;

  /** Without templateId: the text (Handlebars, like a template's body), at most 1,600 characters once rendered. */
  @ApiPropertyOptional({ example: 'Hello {{patient.firstName}}, your results are ready.', minLength: 1, maxLength: SMS_BODY_MAX_LENGTH })
  @IsOptional()
  @IsString()
  @Length(1, SMS_BODY_MAX_LENGTH)
  @Matches(/\S/, { message: 'must not be blank' })
  body?: string;

  /** The caller's placeholders (`{{appointmentDate}}`). */
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, example: { appointmentDate: 'Monday 24 November, 09:30' } })
  @IsOptional()
  @IsObject()
  templateVariables?: Record<string, unknown>;
}

export class SmsSendAcceptedDto {
  /** Also the id of the BullMQ job that sends it. Follow it at GET /sms/messages/{messageId}. */
  @ApiProperty({ format: 'uuid' })
  messageId!: string;

  @ApiProperty({ enum: ['queued'], example: 'queued' })
  status!: 'queued';
}

/** A text message and where its sending stands. */
export class SmsMessageDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  /** What it is for: a `send` through POST /sms/send, an appointment `reminder`, a `booking_notice`, a `waitlist_offer`. */
  @ApiProperty({ enum: MESSAGE_KINDS, example: 'reminder' })
  kind!: MessageKind;

  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  patientId!: string | null;

  /** The appointment a reminder or notice is about. */
  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  appointmentId!: string | null;

  /** E.164. */
  @ApiProperty({ example: '+15005550006' })
  to!: string;

  /** The text as rendered when it was queued. */
  @ApiProperty({ example: 'Hello Ada, your results are ready.' })
  body!: string;

  /** Messages the text takes (what the provider bills): GSM-7 160 in one, 153 per part; UCS-2 70 / 67. */
  @ApiProperty({ type: 'integer', example: 1 })
  segments!: number;

  @ApiProperty({ enum: ['GSM-7', 'UCS-2'], example: 'GSM-7' })
  encoding!: 'GSM-7' | 'UCS-2';

  /**
   * `queued` (waiting, or between retries), `sending` (a worker is sending it; sent again if that worker
   * stopped), `sent` (the provider accepted it), then from the provider's status callbacks `delivered`,
   * `undelivered` or `failed`; `failed` also when every try failed (see lastError); `suppressed` when the
   * patient opted out of SMS before it went (lastError says so).
   */
  @ApiProperty({ enum: SMS_STATUSES, example: 'sent' })
  status!: SmsStatus;

  /** How it was sent: `twilio`, `log` (SMS_PROVIDER=log) or `test` (a test-mode message: never sent). Null until sent. */
  @ApiProperty({ enum: SMS_TRANSPORTS, nullable: true, example: 'twilio' })
  transport!: SmsTransportName | null;

  /** The provider's id of the message (Twilio's `SM…` sid). */
  @ApiProperty({ nullable: true, type: String, example: 'SM0123456789abcdef0123456789abcdef' })
  providerMessageId!: string | null;

  @ApiProperty({ nullable: true, type: String, example: null })
  lastError!: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt!: string;
}

export class SmsMessageListDto extends PageOf(SmsMessageDto, 'messages') {}

/** GET /sms/messages: a page, newest first, narrowed by any of the filters. */
export class ListSmsMessagesQueryDto extends MessageListQueryDto {
  @ApiPropertyOptional({ enum: SMS_STATUSES })
  @IsOptional()
  @IsIn(SMS_STATUSES)
  status?: SmsStatus;

  /** `test`: the messages test mode captured. */
  @ApiPropertyOptional({ enum: SMS_TRANSPORTS })
  @IsOptional()
  @IsIn(SMS_TRANSPORTS)
  transport?: SmsTransportName;
}
