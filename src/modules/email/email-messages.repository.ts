import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { uuidv7 } from '../../common/ids';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/pagination';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { EmailMessageEntity, EmailStatus, EmailTransportName } from './entities/email-message.entity';

/** A message as queued: rendered, addressed, and (for a sequence step) placed in its enrolment. */
export interface NewEmailMessage {
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

export interface EmailMessageFilters {
  patientId?: string;
  status?: EmailStatus;
  sequenceId?: string;
}

/**
 * Messages, and the status changes of their sending. Every change is one conditional UPDATE on the
 * status it expects, so two workers (or two tries of one job) can never both move a message on.
 */
@Injectable()
export class EmailMessagesRepository extends TenantEntityRepository<EmailMessageEntity> {
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
                                   html_body, text_body, status, attempts, next_attempt_at, created_at, updated_at)
       VALUES ($3, $1, $2, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'queued', 0, $13, $13, $13)
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
      ],
      tx,
    );
    if (row) return { id: row.id, created: true };
    const existing = await this.findOne(scope, { enrollmentId: values.enrollmentId!, step: values.step! }, tx);
    return { id: existing!.id, created: false };
  }

  list(scope: TenantScope, filters: EmailMessageFilters, page: PageRequest): Promise<Page<EmailMessageEntity>> {
    const q = this.query(scope, 'm');
    if (filters.patientId) q.andWhere('m.patient_id = :patientId', { patientId: filters.patientId });
    if (filters.status) q.andWhere('m.status = :status', { status: filters.status });
    if (filters.sequenceId) q.andWhere('m.sequence_id = :sequenceId', { sequenceId: filters.sequenceId });
    return this.paginate(q, page);
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
    return this.settle(
      scope,
      id,
      [from],
      `status = 'sent', transport = $5, smtp_message_id = $6, last_error = $7, sent_at = $8,
       attempts = attempts + CASE WHEN status = 'queued' THEN 1 ELSE 0 END`,
      [values.transport, values.smtpMessageId, values.lastError, clock.now()],
      tx,
    );
  }

  /** Settles a message as failed for good, from either unsettled status. */
  async markFailed(scope: TenantScope, id: string, error: string, tx: EntityManager): Promise<EmailMessageEntity | null> {
    return this.settle(scope, id, ['queued', 'sending'], `status = 'failed', last_error = $5`, [error.slice(0, 500)], tx);
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
      [id, error.slice(0, 500), nextAttemptAt, clock.now()],
    );
  }

  private async settle(
    scope: TenantScope,
    id: string,
    from: EmailStatus[],
    set: string,
    params: unknown[],
    tx: EntityManager,
  ): Promise<EmailMessageEntity | null> {
    const [rows] = await this.sql<[Record<string, unknown>[], number]>(
      scope,
      `UPDATE email_messages SET ${set}, updated_at = $${params.length + 5}
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status = ANY($4::text[])
        RETURNING *`,
      [id, from, ...params, clock.now()],
      tx,
    );
    return rows[0] ? this.fromRaw(rows[0]) : null;
  }

  private fromRaw(raw: Record<string, unknown>): EmailMessageEntity {
    return this.repository.create({
      id: raw.id,
      tenantId: raw.tenant_id,
      mode: raw.mode,
      patientId: raw.patient_id,
      templateId: raw.template_id,
      sequenceId: raw.sequence_id,
      enrollmentId: raw.enrollment_id,
      step: raw.step,
      toAddress: raw.to_address,
      subject: raw.subject,
      htmlBody: raw.html_body,
      textBody: raw.text_body,
      status: raw.status,
      attempts: raw.attempts,
      lastError: raw.last_error,
      smtpMessageId: raw.smtp_message_id,
      transport: raw.transport,
      nextAttemptAt: raw.next_attempt_at,
      handedOverAt: raw.handed_over_at,
      sentAt: raw.sent_at,
      bodyClearedAt: raw.body_cleared_at,
      createdAt: raw.created_at,
      updatedAt: raw.updated_at,
    } as Partial<EmailMessageEntity>);
  }
}
