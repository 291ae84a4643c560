import { Check, Column, Entity, Index } from 'typeorm';
import { References } from '../../../database/references';
import { OutgoingMessageEntity } from '../../../common/messaging';
import { InstantColumn } from '../../../database/instant-column';

export const EMAIL_STATUSES = ['queued', 'sending', 'sent', 'failed', 'suppressed'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/** A file sent with a message (a booking notice's .ics), stored as queued so that every try sends the same bytes. */
export interface EmailAttachment {
  filename: string;
  /** The part's Content-Type, parameters included (`text/calendar; method=PUBLISH`). */
  contentType: string;
  content: string;
}

export const EMAIL_TRANSPORTS = ['smtp', 'log', 'test'] as const;
export type EmailTransportName = (typeof EMAIL_TRANSPORTS)[number];

/**
 * One message, rendered when it was queued (what was previewed is what goes out). Its id is the BullMQ
 * job id. `sending` means a worker took it and has not recorded the SMTP server's answer (see MessageSender):
 * a row left in that state by a worker that died is sent again.
 */
@Entity('email_messages')
@Check(`"status" IN ('queued', 'sending', 'sent', 'failed', 'suppressed')`)
@Check(`"transport" IN ('smtp', 'log', 'test')`)
@Check(`"kind" IN ('send', 'sequence', 'reminder', 'booking_notice', 'waitlist_offer')`)
@Check(`html_body IS NOT NULL OR text_body IS NOT NULL OR body_cleared_at IS NOT NULL`)
@Index('IDX_EMAIL_MESSAGES_TENANT_MODE_CREATED', ['tenantId', 'mode', 'createdAt', 'id'])
@Index('IDX_EMAIL_MESSAGES_TENANT_MODE_PATIENT', ['tenantId', 'mode', 'patientId', 'createdAt', 'id'], { where: 'patient_id IS NOT NULL' })
@Index('IDX_EMAIL_MESSAGES_TENANT_MODE_SEQUENCE', ['tenantId', 'mode', 'sequenceId', 'createdAt', 'id'], {
  where: 'sequence_id IS NOT NULL',
})
@Index('IDX_EMAIL_MESSAGES_TENANT_MODE_APPOINTMENT', ['tenantId', 'mode', 'appointmentId', 'createdAt', 'id'], {
  where: 'appointment_id IS NOT NULL',
})
@Index('IDX_EMAIL_MESSAGES_TENANT_MODE_STATUS', ['tenantId', 'mode', 'status', 'createdAt', 'id'])
@Index('UQ_EMAIL_MESSAGES_ENROLLMENT_STEP', ['tenantId', 'mode', 'enrollmentId', 'step'], {
  unique: true,
  where: 'enrollment_id IS NOT NULL',
})
@Index('IDX_EMAIL_MESSAGES_DUE', ['nextAttemptAt'], { where: `status IN ('queued', 'sending')` })
@Index('IDX_EMAIL_MESSAGES_BODY_HELD', ['sentAt'], { where: `status = 'sent' AND body_cleared_at IS NULL` })
export class EmailMessageEntity extends OutgoingMessageEntity<EmailStatus, EmailTransportName> {
  @References('EmailTemplateEntity', 'template_id', 'SET NULL')
  readonly templateFk?: never;

  @Column({ type: 'uuid', nullable: true })
  sequenceId!: string | null;

  @Column({ type: 'uuid', nullable: true })
  enrollmentId!: string | null;

  @Column({ type: 'integer', nullable: true })
  step!: number | null;

  @Column({ type: 'varchar', length: 320 })
  toAddress!: string;

  @Column({ type: 'varchar', length: 998 })
  subject!: string;

  @Column({ type: 'text', nullable: true })
  htmlBody!: string | null;

  @Column({ type: 'text', nullable: true })
  textBody!: string | null;

  /** Cleared with the bodies. */
  @Column({ type: 'jsonb', nullable: true })
  attachments!: EmailAttachment[] | null;

  @Column({ type: 'varchar', length: 998, nullable: true })
  smtpMessageId!: string | null;

  /** When the final dot of DATA was let out: from here on the message is never sent again. */
  @InstantColumn({ nullable: true })
  handedOverAt!: Date | null;

  /** When the retention sweep cleared the stored bodies of this sent message (EMAIL_BODY_RETENTION_DAYS). */
  @InstantColumn({ nullable: true })
  bodyClearedAt!: Date | null;
}
