import { Check, Column, Entity, Index } from 'typeorm';
import { References } from '../../../database/references';
import { OutgoingMessageEntity } from '../../../common/messaging';
import type { SmsEncoding } from '../sms-segments';

export const SMS_STATUSES = ['queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'suppressed'] as const;
export type SmsStatus = (typeof SMS_STATUSES)[number];

/** Statuses a message never leaves once the provider (or a suppression) has settled it for good. */
export const FINAL_SMS_STATUSES: readonly SmsStatus[] = ['delivered', 'undelivered', 'failed', 'suppressed'];

export const SMS_TRANSPORTS = ['twilio', 'log', 'test'] as const;
export type SmsTransportName = (typeof SMS_TRANSPORTS)[number];

/**
 * One text message, rendered when it was queued. Its id is the BullMQ job id. `sending` means a worker
 * started a try and has not recorded the provider's answer (see MessageSender): a row left so by a worker
 * that died is sent again.
 */
@Entity('sms_messages')
@Check(`"status" IN ('queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'suppressed')`)
@Check(`"transport" IN ('twilio', 'log', 'test')`)
@Check(`"encoding" IN ('GSM-7', 'UCS-2')`)
@Check(`"kind" IN ('send', 'sequence', 'reminder', 'booking_notice', 'waitlist_offer')`)
@Index('IDX_SMS_MESSAGES_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
@Index('IDX_SMS_MESSAGES_TENANT_MODE_PATIENT', ['tenantId', 'mode', 'patientId', 'createdAt', 'id'], { where: 'patient_id IS NOT NULL' })
@Index('IDX_SMS_MESSAGES_TENANT_MODE_APPOINTMENT', ['tenantId', 'mode', 'appointmentId', 'createdAt', 'id'], {
  where: 'appointment_id IS NOT NULL',
})
@Index('IDX_SMS_MESSAGES_TENANT_MODE_STATUS', ['tenantId', 'mode', 'status', 'createdAt', 'id'])
@Index('UQ_SMS_MESSAGES_PROVIDER_ID', ['providerMessageId'], { unique: true, where: 'provider_message_id IS NOT NULL' })
export class SmsMessageEntity extends OutgoingMessageEntity<SmsStatus, SmsTransportName> {
  @References('SmsTemplateEntity', 'template_id', 'SET NULL')
  readonly templateFk?: never;

  /** E.164. */
  @Column({ type: 'varchar', length: 20 })
  toNumber!: string;

  /** The number it was sent from (Twilio), once a try has chosen it. */
  @Column({ type: 'varchar', length: 20, nullable: true })
  fromNumber!: string | null;

  @Column({ type: 'text' })
  body!: string;

  @Column({ type: 'integer' })
  segments!: number;

  @Column({ type: 'varchar', length: 5 })
  encoding!: SmsEncoding;

  /** The provider's id of the message (Twilio's `SM…` sid). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  providerMessageId!: string | null;
}
