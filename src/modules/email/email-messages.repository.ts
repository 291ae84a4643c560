import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { uuidv7 } from '../../common/ids';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/pagination';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page } from '../../database/tenant-scoped.repository';
import { lastError, MessageKind, OutgoingMessageFilters, OutgoingMessagesRepository } from '../../common/messaging';
import { EmailMessageEntity, EmailStatus, EmailTransportName } from './entities/email-message.entity';

/** A message as queued: rendered, addressed, and (for a sequence step) placed in its enrolment. */
export interface NewEmailMessage {
  kind: MessageKind;
  appointmentId: string | null;
  patientId: string | null;
  templateId: string | null;
  sequenceId: string | null;
  enrollmentId: string | null;
  step: number | null;
  toAddress: string;
  subject: string;
  htmlBody: string | null;
  textBody: string | null;
}

export interface EmailMessageFilters extends OutgoingMessageFilters<EmailStatus, EmailTransportName> {
  sequenceId?: string;
}

/** Email messages and the status changes of their sending (see OutgoingMessagesRepository). */
@Injectable()
export class EmailMessagesRepository extends OutgoingMessagesRepository<EmailMessageEntity> {
  constructor(@InjectRepository(EmailMessageEntity) repository: Repository<EmailMessageEntity>) {
    super(repository);
  }

  /**
   * Inserts a queued message; answers its id and whether it is new. A sequence step's message is unique
   * per (enrolment, step): inserting it again answers the existing id, so a step job that runs twice
   * queues one message.
   */
  async insertQueued(scope: TenantScope, values: NewEmailMessage, tx?: EntityManager): Promise<{ id: string; created: boolean }> {
    const id = uuidv7();
    const now = clock.now();
    const [row] = await this.sql<{ id: string }[]>(
      scope,
      `INSERT INTO email_messages (id, tenant_id, mode, patient_id, template_id, sequence_id, enrollment_id, step, to_address, subject,
                                   html_body, text_body, kind, appointment_id, status, attempts, next_attempt_at, created_at, updated_at)
       VALUES ($3, $1, $2, $4, $5, $6, $7, $8, $9, $10, $11, $12, $14, $15, 'queued', 0, $13, $13, $13)
       ON CONFLICT (tenant_id, mode, enrollment_id, step) WHERE enrollment_id IS NOT NULL DO NOTHING
       RETURNING id`,
      [
        id,
        values.patientId,
        values.templateId,
        values.sequenceId,
        values.enrollmentId,
        values.step,
        values.toAddress,
        values.subject,
        values.htmlBody,
        values.textBody,
        now,
        values.kind,
        values.appointmentId,
      ],
      tx,
    );
    if (row) return { id: row.id, created: true };
    const existing = await this.findOne(scope, { enrollmentId: values.enrollmentId!, step: values.step! }, tx);
    return { id: existing!.id, created: false };
  }

  override list(scope: TenantScope, filters: EmailMessageFilters, page: PageRequest): Promise<Page<EmailMessageEntity>> {
    return super.list(scope, filters, page, (q) => {
      if (filters.sequenceId) q.andWhere('m.sequence_id = :sequenceId', { sequenceId: filters.sequenceId });
    });
  }

  /**
   * Takes a message for one try: queued → sending (or sending again, for the re-run of a job whose
   * worker died mid-send), in its own committed statement before the SMTP transaction starts, so that a
   * row left `sending` names a message whose acceptance was never recorded. False when it is in neither
   * status any more (settled, or suppressed).
   */
  async claim(scope: TenantScope, id: string, from: 'queued' | 'sending'): Promise<boolean> {
    const [rows] = await this.sql<[unknown[], number]>(
      scope,
      `UPDATE email_messages SET status = 'sending', attempts = attempts + 1, handed_over_at = $5, updated_at = $5
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status = $4
        RETURNING id`,
      [id, from, clock.now()],
    );
    return rows.length > 0;
  }

  /**
   * Settles a message as sent: from `sending` (SMTP, once the server has accepted it) or from `queued`
   * (the log transport, which takes no try). Answers the row when this call settled it.
   */
  async markSent(
    scope: TenantScope,
    id: string,
    from: 'queued' | 'sending',
    values: { transport: EmailTransportName; smtpMessageId: string | null; lastError: string | null },
    tx: EntityManager,
  ): Promise<EmailMessageEntity | null> {
    return this.updateFromStatus(
      scope,
      id,
      [from],
      `status = 'sent', transport = $5, smtp_message_id = $6, last_error = $7, sent_at = $8,
       attempts = attempts + CASE WHEN status = 'queued' THEN 1 ELSE 0 END`,
      [values.transport, values.smtpMessageId, values.lastError, clock.now()],
      tx,
    );
  }

  /** The patient opted out before the message went: it is not sent (again). */
  async markSuppressed(scope: TenantScope, id: string): Promise<boolean> {
    const [rows] = await this.sql<[unknown[], number]>(
      scope,
      `UPDATE email_messages SET status = 'suppressed', last_error = 'the patient unsubscribed from email', updated_at = $4
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status IN ('queued', 'sending')
        RETURNING id`,
      [id, clock.now()],
    );
    return rows.length > 0;
  }

  /**
   * A try that did not deliver and may be repeated: `sending` goes back to `queued` with the error kept
   * (the claim counted the try). `nextAttemptAt` records when its retry is due.
   */
  async markRetry(scope: TenantScope, id: string, error: string, nextAttemptAt: Date): Promise<void> {
    await this.sql(
      scope,
      `UPDATE email_messages
          SET status = 'queued', last_error = $4, next_attempt_at = $5, handed_over_at = NULL, updated_at = $6
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status = 'sending'`,
      [id, lastError(error), nextAttemptAt, clock.now()],
    );
  }
}
