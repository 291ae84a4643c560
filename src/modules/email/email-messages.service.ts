import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../common/auth/auth.types';
import type { TemplateAppointment } from '../../common/templates/template-context';
import { TenantScope } from '../../database/tenant-owned.entity';
import { PageRequest } from '../../common/http/pagination';
import { ValidationFailedException } from '../../common/http/problem';
import { Transactions } from '../../database/transactions';
import { MessageKind, Recipient as MessageRecipient, recipientOf } from '../../common/messaging';
import type { PatientDto } from '../patients';
import { EmailMessageDetailDto, EmailMessageDto, EmailMessageListDto, ListEmailMessagesQueryDto } from './dto/email-message.dto';
import { EmailSendAcceptedDto, SendEmailDto } from './dto/send-email.dto';
import { EmailContexts } from './email-contexts.service';
import { assertEmailPartsCompile, EmailParts, renderEmailParts } from './email-rendering';
import { EmailMessagesRepository } from './email-messages.repository';
import { EmailSendJobs } from './email-send-jobs.service';
import { EmailTemplatesService } from './email-templates.service';
import { EmailMessageNotFoundException } from './email.exceptions';
import { EmailMessageEntity } from './entities/email-message.entity';

/** A sequence step's or a reminder's message (see EmailMessagesService.queue). */
export interface QueueEmailInput {
  kind: Exclude<MessageKind, 'send'>;
  patientId: string;
  /** The appointment a reminder or notice is about. */
  appointmentId?: string;
  templateId: string;
  variables?: Record<string, unknown>;
  /** A reminder's appointment, which its template sees as `{{appointment.*}}`. */
  appointment?: TemplateAppointment;
  sequenceId?: string;
  enrollmentId?: string;
  step?: number;
}

type Recipient = MessageRecipient<PatientDto>;

/**
 * Queues messages and reads them back. A message is rendered when it is queued and stored as rendered;
 * the message's job is recorded with its row and added once it commits (EmailSendJobs), and the worker (EmailSender)
 * takes it from there.
 */
@Injectable()
export class EmailMessagesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly messages: EmailMessagesRepository,
    private readonly templates: EmailTemplatesService,
    private readonly contexts: EmailContexts,
    private readonly jobs: EmailSendJobs,
  ) {}

  /** POST /emails/send: checks and renders the message, stores it queued, and has it sent. */
  async send(auth: AuthContext, dto: SendEmailDto): Promise<EmailSendAcceptedDto> {
    const recipient = await this.recipient(auth, dto);
    const { parts, templateId } = await this.content(auth, dto);
    const rendered = renderEmailParts(
      parts,
      await this.contexts.build(auth, recipient.patient, dto.templateVariables),
      'templateVariables',
    );
    return this.transactions.run(async (tx) => {
      const { id } = await this.insert(auth, recipient, rendered, { kind: 'send', templateId }, tx);
      return { messageId: id, status: 'queued' as const };
    });
  }

  /**
   * Queues one message from a template to a patient of the scope inside the caller's transaction `tx`: the row is
   * written in it and its job is added once it commits (nothing is sent if it rolls back; the job outbox
   * adds the job whenever Redis can take it). For sequence
   * steps: with `enrollmentId` and `step`, queueing the same step again answers the same message id.
   * The patient must have an email address and the template must exist in the caller's tenant and mode
   * (400 validation_failed naming `patientId` / `templateId` otherwise). A patient who has opted out gets
   * a message that ends `suppressed`, so every step leaves a record.
   */
  async queue(scope: TenantScope, input: QueueEmailInput, tx: EntityManager): Promise<{ messageId: string }> {
    const patient = await this.contexts.patient(scope, input.patientId, 'patientId', true);
    const template = await this.templates.named(scope, input.templateId, 'templateId');
    const rendered = renderEmailParts(template, await this.contexts.build(scope, patient, input.variables, input.appointment), 'variables');
    const { id } = await this.insert(
      scope,
      { to: patient.email!, patient },
      rendered,
      {
        kind: input.kind,
        appointmentId: input.appointmentId ?? null,
        templateId: template.id,
        sequenceId: input.sequenceId ?? null,
        enrollmentId: input.enrollmentId ?? null,
        step: input.step ?? null,
      },
      tx,
    );
    return { messageId: id };
  }

  async list(auth: AuthContext, query: ListEmailMessagesQueryDto, page: PageRequest): Promise<EmailMessageListDto> {
    const { patientId, status, sequenceId, transport, appointmentId } = query;
    const result = await this.messages.list(auth, { patientId, status, sequenceId, transport, appointmentId }, page);
    return { messages: result.items.map(toMessageDto), nextCursor: result.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<EmailMessageDetailDto> {
    const row = await this.messages.findById(auth, id);
    if (!row) throw new EmailMessageNotFoundException();
    return {
      ...toMessageDto(row),
      htmlContent: row.htmlBody,
      textContent: row.textBody,
      bodyClearedAt: row.bodyClearedAt ? row.bodyClearedAt.toISOString() : null,
    };
  }

  private async insert(
    scope: TenantScope,
    recipient: Recipient,
    rendered: EmailParts,
    refs: {
      kind: MessageKind;
      appointmentId?: string | null;
      templateId: string | null;
      sequenceId?: string | null;
      enrollmentId?: string | null;
      step?: number | null;
    },
    tx: EntityManager,
  ): Promise<{ id: string }> {
    const { id, created } = await this.messages.insertQueued(
      scope,
      {
        kind: refs.kind,
        appointmentId: refs.appointmentId ?? null,
        patientId: recipient.patient?.id ?? null,
        templateId: refs.templateId,
        sequenceId: refs.sequenceId ?? null,
        enrollmentId: refs.enrollmentId ?? null,
        step: refs.step ?? null,
        toAddress: recipient.to,
        // A header: a line break from a variable must not start another one.
        subject: rendered.subject.replace(/[\r\n]+/g, ' ').slice(0, 998),
        htmlBody: rendered.htmlContent,
        textBody: rendered.textContent,
      },
      tx,
    );
    if (created) await this.jobs.record(scope, id, tx);
    return { id };
  }

  private recipient(auth: AuthContext, dto: SendEmailDto): Promise<Recipient> {
    return recipientOf(dto, async (id) => {
      const patient = await this.contexts.patient(auth, id, 'patientId', true);
      return { to: patient.email!, patient };
    });
  }

  private async content(auth: AuthContext, dto: SendEmailDto): Promise<{ parts: EmailParts; templateId: string | null }> {
    const inline = [dto.subject, dto.htmlContent, dto.textContent].some((v) => v !== undefined && v !== null);
    if (dto.templateId) {
      if (inline) {
        const field = dto.subject != null ? 'subject' : dto.htmlContent != null ? 'htmlContent' : 'textContent';
        throw new ValidationFailedException([{ field, message: 'must not be sent with templateId' }]);
      }
      const template = await this.templates.named(auth, dto.templateId, 'templateId');
      return { parts: template, templateId: template.id };
    }
    if (!dto.subject) throw new ValidationFailedException([{ field: 'subject', message: 'is required without templateId' }]);
    if (!dto.htmlContent && !dto.textContent) {
      throw new ValidationFailedException([{ field: 'htmlContent', message: 'or textContent is required without templateId' }]);
    }
    const parts = { subject: dto.subject, htmlContent: dto.htmlContent ?? null, textContent: dto.textContent ?? null };
    assertEmailPartsCompile(parts);
    return { parts, templateId: null };
  }
}

export function toMessageDto(row: EmailMessageEntity): EmailMessageDto {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    to: row.toAddress,
    patientId: row.patientId,
    appointmentId: row.appointmentId,
    templateId: row.templateId,
    sequenceId: row.sequenceId,
    enrollmentId: row.enrollmentId,
    step: row.step,
    subject: row.subject,
    attempts: row.attempts,
    lastError: row.lastError,
    smtpMessageId: row.smtpMessageId,
    transport: row.transport,
    textBody: row.textBody,
    htmlBody: row.htmlBody,
    sentAt: row.sentAt ? row.sentAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
