import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../common/auth/auth.types';
import { PageRequest } from '../../common/http/pagination';
import { ValidationFailedException } from '../../common/http/problem';
import type { TemplateAppointment } from '../../common/templates/template-context';
import { assertTemplatesCompile } from '../../common/templates/template-renderer';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { MessageKind, Recipient as MessageRecipient, recipientOf, requireExactlyOne } from '../../common/messaging';
import type { PatientDto } from '../patients';
import { PatientsService } from '../patients';
import { TemplateContextService } from '../templates';
import { ListSmsMessagesQueryDto, SendSmsDto, SmsMessageDto, SmsMessageListDto, SmsSendAcceptedDto } from './dto/sms-message.dto';
import { SmsMessageEntity } from './entities/sms-message.entity';
import { SmsConsent } from './sms-consent.service';
import { RenderedSms, renderSendableSms } from './sms-rendering';
import { SmsMessagesRepository } from './sms-messages.repository';
import { SmsSendJobs } from './sms-send-jobs.service';
import { SmsTemplatesService } from './sms-templates.service';
import { SmsMessageNotFoundException } from './sms.exceptions';

/**
 * One SMS to a patient, queued inside another module's transaction (see SmsMessagesService.queue): a
 * template of the caller's tenant and mode (`templateId`) or a text (`body`), one of them, rendered with
 * the patient, the practice settings and `variables`.
 */
export interface QueueSmsInput {
  kind: Exclude<MessageKind, 'send'>;
  patientId: string;
  /** The appointment a reminder or notice is about. */
  appointmentId?: string;
  templateId?: string;
  body?: string;
  variables?: Record<string, unknown>;
  /** A reminder's appointment, which its template sees as `{{appointment.*}}`. */
  appointment?: TemplateAppointment;
}

type Recipient = MessageRecipient<PatientDto>;

/**
 * Queues text messages and reads them back. A message is rendered when it is queued and stored as
 * rendered, with its segments; its job is recorded with its row and added once it commits (SmsSendJobs),
 * and the worker (SmsSender) takes it from there.
 */
@Injectable()
export class SmsMessagesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly messages: SmsMessagesRepository,
    private readonly templates: SmsTemplatesService,
    private readonly patients: PatientsService,
    private readonly contexts: TemplateContextService,
    private readonly jobs: SmsSendJobs,
    private readonly consent: SmsConsent,
  ) {}

  /** POST /sms/send: checks and renders the message, stores it queued, and has it sent. */
  async send(auth: AuthContext, dto: SendSmsDto): Promise<SmsSendAcceptedDto> {
    const recipient = await this.recipient(auth, dto);
    // A bare `to` is of a kind the practice may text (the DTO checks that); here, of one of its countries.
    if (dto.to) await this.requireTextable(auth, dto.to, 'to');
    const { source, templateId } = await this.content(auth, dto);
    const context = await this.contexts.build(auth, { patient: recipient.patient, variables: dto.templateVariables });
    const rendered = renderSendableSms(source, context, 'templateVariables');
    return this.transactions.run(async (tx) => {
      const row = await this.insert(auth, recipient, rendered, { kind: 'send', templateId }, tx);
      return { messageId: row.id, status: 'queued' as const };
    });
  }

  /**
   * Queues one SMS to a patient inside the caller's transaction `tx` (an appointment reminder, say): the
   * row is written in it and its send job is added once it commits, so a rolled-back caller sends
   * nothing. The patient needs a phone number and the template must be an SMS template of the scope
   * (400 validation_failed naming `patientId` / `templateId` otherwise). A patient who opted out of SMS (or
   * whose phone replied STOP to the practice's number) gets a message that is `suppressed` at once
   * (lastError says why), so every attempt leaves a record.
   * Answers the message as GET /sms/messages/{id} shows it.
   */
  async queue(scope: TenantScope, input: QueueSmsInput, tx: EntityManager): Promise<SmsMessageDto> {
    const patient = await this.patient(scope, input.patientId, 'patientId', tx);
    const { source, templateId } = await this.content(scope, { templateId: input.templateId, body: input.body });
    const context = await this.contexts.build(scope, { patient, variables: input.variables, appointment: input.appointment });
    const rendered = renderSendableSms(source, context, 'variables');
    const refs = { kind: input.kind, appointmentId: input.appointmentId ?? null, templateId };
    const row = await this.insert(scope, { to: patient.phone!, patient }, rendered, refs, tx);
    return toSmsMessageDto(row);
  }

  async list(auth: AuthContext, query: ListSmsMessagesQueryDto, page: PageRequest): Promise<SmsMessageListDto> {
    const { patientId, status, transport, appointmentId } = query;
    const result = await this.messages.list(auth, { patientId, status, transport, appointmentId }, page);
    return { messages: result.items.map(toSmsMessageDto), nextCursor: result.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<SmsMessageDto> {
    const row = await this.messages.findById(auth, id);
    if (!row) throw new SmsMessageNotFoundException();
    return toSmsMessageDto(row);
  }

  private async insert(
    scope: TenantScope,
    recipient: Recipient,
    rendered: RenderedSms,
    refs: { kind: MessageKind; appointmentId?: string | null; templateId: string | null },
    tx: EntityManager,
  ): Promise<SmsMessageEntity> {
    const row = await this.messages.insertQueued(
      scope,
      {
        kind: refs.kind,
        appointmentId: refs.appointmentId ?? null,
        patientId: recipient.patient?.id ?? null,
        templateId: refs.templateId,
        toNumber: recipient.to,
        body: rendered.body,
        segments: rendered.segments,
        encoding: rendered.encoding,
        // Known now: no job. The worker checks again before each try, for an opt-out that comes later.
        suppressed:
          (await this.consent.suppression(recipient.to, recipient.patient ?? null, await this.consent.fromNumber(scope, tx), tx)) ??
          undefined,
      },
      tx,
    );
    if (row.status === 'queued') await this.jobs.record(scope, row.id, tx);
    return row;
  }

  private recipient(scope: TenantScope, dto: SendSmsDto): Promise<Recipient> {
    return recipientOf(dto, async (id) => {
      const patient = await this.patient(scope, id, 'patientId');
      return { to: patient.phone!, patient };
    });
  }

  /**
   * The patient a body names (`field`), with a phone number the practice may text, or 400 naming the field.
   * A patient's phone may be any valid number (a clinic's shared-cost line, say); it is checked when texted.
   */
  private async patient(scope: TenantScope, id: string, field: string, tx?: EntityManager): Promise<PatientDto> {
    const patient = await this.patients.requireReference(scope, id, field);
    if (!patient.phone) throw new ValidationFailedException([{ field, message: 'names a patient without a phone number' }]);
    await this.requireTextable(scope, patient.phone, field, 'names a patient whose phone', tx);
    return patient;
  }

  /** 400 naming `field` when the scope may not text `number` (its kind or its country; SmsConsent.untextable). */
  private async requireTextable(scope: TenantScope, number: string, field: string, subject?: string, tx?: EntityManager): Promise<void> {
    const refused = await this.consent.untextable(scope, number, tx);
    if (refused === null) return;
    const reason = refused ?? 'cannot be texted';
    throw new ValidationFailedException([{ field, message: subject ? `${subject} ${reason}` : reason }]);
  }

  private async content(
    scope: TenantScope,
    dto: { templateId?: string; body?: string },
  ): Promise<{ source: string; templateId: string | null }> {
    requireExactlyOne(dto, 'templateId', 'body');
    if (dto.templateId) {
      const template = await this.templates.named(scope, dto.templateId, 'templateId');
      return { source: template.body, templateId: template.id };
    }
    assertTemplatesCompile({ body: ['text', dto.body] });
    return { source: dto.body!, templateId: null };
  }
}

export function toSmsMessageDto(row: SmsMessageEntity): SmsMessageDto {
  return {
    id: row.id,
    kind: row.kind,
    patientId: row.patientId,
    appointmentId: row.appointmentId ?? null,
    to: row.toNumber,
    body: row.body,
    segments: row.segments,
    encoding: row.encoding,
    status: row.status,
    transport: row.transport ?? null,
    providerMessageId: row.providerMessageId ?? null,
    lastError: row.lastError ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
