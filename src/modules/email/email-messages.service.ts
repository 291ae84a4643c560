import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../common/auth/auth.types';
import { ReadReplicas } from '../../database/read-replicas';
import { TenantScope } from '../../database/tenant-owned.entity';
import { PageRequest } from '../../common/http/lists/pagination';
import { ValidationFailedException } from '../../common/http/errors/problem';
import { Transactions } from '../../database/transactions';
import { MessageKind, Recipient as MessageRecipient, QueueOutcome, Refusal, refused, requireExactlyOne } from '../../common/messaging';
import { noSuchPatient, type PatientDto, PatientsService } from '../patients';
import { TemplateAppointment, TemplateContextService } from '../templates';
import { emailSuppression } from './email-consent';
import { EmailMessageDetailDto, EmailMessageDto, EmailMessageListDto, ListEmailMessagesQueryDto } from './dto/email-message.dto';
import { EmailSendAcceptedDto, SendEmailDto } from './dto/send-email.dto';
import { assertEmailPartsCompile, EmailParts, emailPartsOrRefusal } from './email-rendering';
import { EmailMessagesRepository } from './email-messages.repository';
import { EmailSendJobs } from './email-send-jobs.service';
import { EmailTemplatesService } from './email-templates.service';
import { EmailMessageNotFoundException } from './email.exceptions';
import { EmailAttachment, EmailMessageEntity } from './entities/email-message.entity';

/** A sequence step's, a reminder's or a notice's message (see EmailMessagesService.queue). */
export interface QueueEmailInput {
  kind: Exclude<MessageKind, 'send'>;
  patientId: string;
  /** The appointment a reminder or notice is about. */
  appointmentId?: string;
  /** An email template of the scope; or, instead, `content`. */
  templateId?: string;
  /** The message's own template source (a notice's built-in text), rendered as a template's would be. */
  content?: EmailParts;
  /** Sent with the message as they are (a notice's .ics). */
  attachments?: EmailAttachment[];
  variables?: Record<string, unknown>;
  /** A reminder's appointment, which its template sees as `{{appointment.*}}`. */
  appointment?: TemplateAppointment;
  sequenceId?: string;
  enrollmentId?: string;
  step?: number;
}

type Recipient = MessageRecipient<PatientDto>;

/** A message to write: its recipient, its rendered parts, and where it came from. */
interface Prepared {
  recipient: Recipient;
  rendered: EmailParts;
  templateId: string | null;
}

/**
 * Queues messages and reads them back. A message is rendered when it is queued and stored as rendered;
 * the message's job is recorded with its row and added once it commits (EmailSendJobs), and the worker
 * (MessageSender through EmailChannel) takes it from there.
 */
@Injectable()
export class EmailMessagesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly messages: EmailMessagesRepository,
    private readonly templates: EmailTemplatesService,
    private readonly patients: PatientsService,
    private readonly contexts: TemplateContextService,
    private readonly jobs: EmailSendJobs,
    private readonly replicas: ReadReplicas,
  ) {}

  /** POST /emails/send: checks and renders the message, stores it queued, and has it sent. */
  async send(auth: AuthContext, dto: SendEmailDto): Promise<EmailSendAcceptedDto> {
    const prepared = await this.prepare(
      auth,
      dto,
      () => this.content(auth, dto),
      { variables: dto.templateVariables },
      'templateVariables',
    );
    if ('status' in prepared) throw new ValidationFailedException([{ field: prepared.field, message: prepared.message }]);
    const outcome = await this.transactions.run((tx) => this.write(auth, prepared, { kind: 'send' }, tx));
    // A message to a patient who unsubscribed is accepted too: it is recorded `suppressed`.
    return { messageId: outcome.messageId, status: 'queued' };
  }

  /**
   * Queues one message from a template to a patient of the scope inside the caller's transaction `tx`: the row is
   * written in it and its job is added once it commits (nothing is sent if it rolls back; the job outbox
   * adds the job whenever Redis can take it). For sequence steps: with `enrollmentId` and `step`, queueing the
   * same step again answers the same message id. A patient who has unsubscribed gets a message that is
   * `suppressed` at once, so every step leaves a record; a patient without an address, a template that is gone
   * or one that cannot be rendered for this patient is `refused` and writes nothing.
   */
  async queue(scope: TenantScope, input: QueueEmailInput, tx: EntityManager): Promise<QueueOutcome> {
    requireExactlyOne(input, 'templateId', 'content');
    const content = async (): Promise<{ parts: EmailParts; templateId: string | null } | Refusal> => {
      if (input.content) return { parts: input.content, templateId: null };
      const template = await this.templates.find(scope, input.templateId!, tx);
      return template ? { parts: template, templateId: template.id } : refused('template_missing', 'templateId', 'names no email template');
    };
    const prepared = await this.prepare(scope, input, content, input, 'variables', tx);
    return 'status' in prepared ? prepared : this.write(scope, prepared, input, tx);
  }

  async list(auth: AuthContext, query: ListEmailMessagesQueryDto, page: PageRequest): Promise<EmailMessageListDto> {
    const { patientId, status, sequenceId, transport, appointmentId } = query;
    const filters = { patientId, status, sequenceId, transport, appointmentId };
    const result = await this.replicas.read((db) => this.messages.list(auth, filters, page, db));
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

  /**
   * The recipient (a patient of the scope, or a bare address), the content and its rendering for them; refused
   * when the patient has no address, the template is gone or it cannot be rendered with `variablesField`'s values.
   */
  private async prepare(
    scope: TenantScope,
    request: { patientId?: string | null; to?: string | null },
    content: () => Promise<{ parts: EmailParts; templateId: string | null } | Refusal>,
    values: { variables?: Record<string, unknown> | null; appointment?: TemplateAppointment },
    variablesField: string,
    tx?: EntityManager,
  ): Promise<Prepared | Refusal> {
    requireExactlyOne(request, 'patientId', 'to');
    // In the caller's transaction: a booking page's lead patient is written in it.
    const patient = request.patientId ? await this.patients.find(scope, request.patientId, tx) : null;
    if (request.patientId && !patient) return refused('no_address', 'patientId', noSuchPatient('patientId').message);
    if (patient && !patient.email) return refused('no_address', 'patientId', 'names a patient without an email address');
    const recipient: Recipient = { to: patient ? patient.email! : request.to!, patient };
    const source = await content();
    if ('status' in source) return source;
    const context = await this.contexts.build(scope, { patient, variables: values.variables, appointment: values.appointment, tx });
    const rendered = emailPartsOrRefusal(source.parts, context, variablesField);
    if ('status' in rendered) return rendered;
    return { recipient, rendered, templateId: source.templateId };
  }

  /** Writes the message in `tx`, `suppressed` at once for a patient who unsubscribed, else queued with its send job. */
  private async write(
    scope: TenantScope,
    { recipient, rendered, templateId }: Prepared,
    refs: {
      kind: MessageKind;
      appointmentId?: string;
      sequenceId?: string;
      enrollmentId?: string;
      step?: number;
      attachments?: EmailAttachment[];
    },
    tx: EntityManager,
  ): Promise<Extract<QueueOutcome, { messageId: string }>> {
    const suppressed = emailSuppression(recipient.patient);
    const { id, created } = await this.messages.insertQueued(
      scope,
      {
        kind: refs.kind,
        appointmentId: refs.appointmentId ?? null,
        patientId: recipient.patient?.id ?? null,
        templateId,
        sequenceId: refs.sequenceId ?? null,
        enrollmentId: refs.enrollmentId ?? null,
        step: refs.step ?? null,
        toAddress: recipient.to,
        // A header: a line break from a variable must not start another one.
        subject: rendered.subject.replace(/[\r\n]+/g, ' ').slice(0, 998),
        htmlBody: rendered.htmlContent,
        textBody: rendered.textContent,
        attachments: refs.attachments,
        suppressed: suppressed ?? undefined,
      },
      tx,
    );
    if (suppressed !== null) return { status: 'suppressed', messageId: id, reason: suppressed };
    if (created) await this.jobs.record(scope, id, tx);
    return { status: 'queued', messageId: id };
  }

  private async content(auth: AuthContext, dto: SendEmailDto): Promise<{ parts: EmailParts; templateId: string | null } | Refusal> {
    const inline = [dto.subject, dto.htmlContent, dto.textContent].some((v) => v !== undefined && v !== null);
    if (dto.templateId) {
      if (inline) {
        const field = dto.subject != null ? 'subject' : dto.htmlContent != null ? 'htmlContent' : 'textContent';
        throw new ValidationFailedException([{ field, message: 'must not be sent with templateId' }]);
      }
      const template = await this.templates.find(auth, dto.templateId);
      if (!template) return refused('template_missing', 'templateId', 'names no email template');
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
