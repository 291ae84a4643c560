import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { uuidv7 } from '../../common/ids';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/lists/pagination';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page } from '../../database/tenant-scoped.repository';
import { ClaimedMessage, MessageKind, OutgoingMessageFilters, OutgoingMessagesRepository } from '../../common/messaging';
import { EmailAttachment, EmailMessageEntity, EmailStatus, EmailTransportName } from './entities/email-message.entity';

/** A message as queued: rendered, addressed, and (for a sequence step) placed in its enrolment. `suppressed` carries the reason it will not be sent. */
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
  attachments?: EmailAttachment[] | null;
  suppressed?: string;
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
                                   html_body, text_body, kind, appointment_id, status, last_error, attachments, attempts, next_attempt_at, created_at, updated_at)
       VALUES ($3, $1, $2, $4, $5, $6, $7, $8, $9, $10, $11, $12, $14, $15, $16, $17, $18, 0, $13, $13, $13)
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
        values.suppressed ? 'suppressed' : 'queued',
        values.suppressed ?? null,
        values.attachments?.length ? JSON.stringify(values.attachments) : null,
      ],
      tx,
    );
    if (row) return { id: row.id, created: true };
    const existing = await this.findOne(scope, { enrollmentId: values.enrollmentId!, step: values.step! }, tx);
    return { id: existing!.id, created: false };
  }

  override list(
    scope: TenantScope,
    filters: EmailMessageFilters,
    page: PageRequest,
    tx?: EntityManager,
  ): Promise<Page<EmailMessageEntity>> {
    return this.narrowedList(
      scope,
      filters,
      page,
      (q) => {
        if (filters.sequenceId) q.andWhere('m.sequence_id = :sequenceId', { sequenceId: filters.sequenceId });
      },
      tx,
    );
  }

  protected readonly relayIdColumn = 'smtp_message_id';

  /** Takes a message for one try (see OutgoingMessagesRepository.claimRow), noting when it was handed over. */
  claim(scope: TenantScope, id: string): Promise<ClaimedMessage<EmailMessageEntity> | null> {
    return this.claimRow(scope, id, 'handed_over_at = $4');
  }

  override markRetry(scope: TenantScope, id: string, error: string, nextAttemptAt: Date): Promise<void> {
    return this.retryRow(scope, id, error, nextAttemptAt, 'handed_over_at = NULL');
  }
}
