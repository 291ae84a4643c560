import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../common/auth/auth.types';
import { PageRequest } from '../../common/http/lists/pagination';
import { ValidationFailedException } from '../../common/http/errors/problem';
import { assertTemplatesCompile } from '../../common/templates/template-renderer';
import { ReadReplicas } from '../../database/read-replicas';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { MessageKind, QueueOutcome, Recipient as MessageRecipient, Refusal, refused, requireExactlyOne } from '../../common/messaging';
import { noSuchPatient, type PatientDto, PatientsService } from '../patients';
import { TemplateAppointment, TemplateContextService } from '../templates';
import { ListSmsMessagesQueryDto, SendSmsDto, SmsMessageDto, SmsMessageListDto, SmsSendAcceptedDto } from './dto/sms-message.dto';
import { SmsMessageEntity } from './entities/sms-message.entity';
import { SmsConsent } from './sms-consent.service';
import { RenderedSms, smsOrRefusal } from './sms-rendering';
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

/** A message to write: its recipient, its rendered text, and the template it came from. */
interface Prepared {
  recipient: Recipient;
  rendered: RenderedSms;
  templateId: string | null;
}

/**
 * Queues text messages and reads them back. A message is rendered when it is queued and stored as
 * rendered, with its segments; its job is recorded with its row and added once it commits (SmsSendJobs),
 * and the worker (MessageSender through SmsChannel) takes it from there.
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
    private readonly replicas: ReadReplicas,
  ) {}

  /** POST /sms/send: checks and renders the message, stores it queued, and has it sent. */
  async send(auth: AuthContext, dto: SendSmsDto): Promise<SmsSendAcceptedDto> {
    const prepared = await this.prepare(auth, dto, { variables: dto.templateVariables }, 'templateVariables');
    if ('status' in prepared) throw new ValidationFailedException([{ field: prepared.field, message: prepared.message }]);
    const outcome = await this.transactions.run((tx) => this.write(auth, prepared, { kind: 'send' }, tx));
    // A text to a patient or phone that opted out is accepted too: it is recorded `suppressed`.
    return { messageId: outcome.messageId, status: 'queued' };
  }

  /**
   * Queues one SMS to a patient inside the caller's transaction `tx` (an appointment reminder, say): the
   * row is written in it and its send job is added once it commits, so a rolled-back caller sends
   * nothing. A patient who opted out of SMS (or whose phone replied STOP to the practice's number) gets a
   * message that is `suppressed` at once (lastError says why), so every attempt leaves a record; a patient
   * without a phone, or with one the practice may not text, a template that is gone or a text that cannot be
   * rendered is `refused` and writes nothing.
   */
  async queue(scope: TenantScope, input: QueueSmsInput, tx: EntityManager): Promise<QueueOutcome> {
    const prepared = await this.prepare(scope, input, input, 'variables', tx);
    return 'status' in prepared ? prepared : this.write(scope, prepared, input, tx);
  }

  async list(auth: AuthContext, query: ListSmsMessagesQueryDto, page: PageRequest): Promise<SmsMessageListDto> {
    const { patientId, status, transport, appointmentId } = query;
    const result = await this.replicas.read((db) => this.messages.list(auth, { patientId, status, transport, appointmentId }, page, db));
    return { messages: result.items.map(toSmsMessageDto), nextCursor: result.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<SmsMessageDto> {
    const row = await this.messages.findById(auth, id);
    if (!row) throw new SmsMessageNotFoundException();
    return toSmsMessageDto(row);
  }

  /**
   * The recipient (a patient of the scope, or a bare number), the content and its rendering for them; refused
   * when the patient has no phone the practice may text, a bare number is not one, the template is gone, or the
   * text cannot be rendered with `variablesField`'s values. A patient's phone may be any valid number (a
   * clinic's shared-cost line, say); it is checked here, when texted.
   */
  private async prepare(
    scope: TenantScope,
    request: { patientId?: string | null; to?: string | null; templateId?: string; body?: string },
    values: { variables?: Record<string, unknown> | null; appointment?: TemplateAppointment },
    variablesField: string,
    tx?: EntityManager,
  ): Promise<Prepared | Refusal> {
    requireExactlyOne(request, 'patientId', 'to');
    // In the caller's transaction, when there is one: a booking page's lead patient is written in it.
    const patient = request.patientId ? await this.patients.find(scope, request.patientId, tx) : null;
    if (request.patientId && !patient) return refused('no_address', 'patientId', noSuchPatient('patientId').message);
    if (patient && !patient.phone) return refused('no_address', 'patientId', 'names a patient without a phone number');
    const to = patient ? patient.phone! : request.to!;
    // A bare `to` is of a kind the practice may text (the DTO checks that); here, of one of its countries.
    const untextable = await this.consent.untextable(scope, to, tx);
    if (untextable !== null) {
      const reason = untextable ?? 'cannot be texted';
      return refused('not_textable', patient ? 'patientId' : 'to', patient ? `names a patient whose phone ${reason}` : reason);
    }
    requireExactlyOne(request, 'templateId', 'body');
    let source = request.body!;
    let templateId: string | null = null;
    if (request.templateId) {
      const template = await this.templates.find(scope, request.templateId, tx);
      if (!template) return refused('template_missing', 'templateId', 'names no SMS template of this tenant and mode');
      ({ body: source, id: templateId } = template);
    } else {
      assertTemplatesCompile({ body: ['text', request.body] });
    }
    const context = await this.contexts.build(scope, { patient, variables: values.variables, appointment: values.appointment, tx });
    const rendered = smsOrRefusal(source, context, variablesField, true);
    if ('status' in rendered) return rendered;
    return { recipient: { to, patient }, rendered, templateId };
  }

  /** Writes the message in `tx`: `suppressed` at once when its recipient opted out, else queued with its send job. */
  private async write(
    scope: TenantScope,
    { recipient, rendered, templateId }: Prepared,
    refs: { kind: MessageKind; appointmentId?: string },
    tx: EntityManager,
  ): Promise<Extract<QueueOutcome, { messageId: string }>> {
    // Known now: no job. The worker checks again before each try, for an opt-out that comes later.
    const suppressed = await this.consent.suppression(recipient.to, recipient.patient, await this.consent.fromNumber(scope, tx), tx);
    const row = await this.messages.insertQueued(
      scope,
      {
        kind: refs.kind,
        appointmentId: refs.appointmentId ?? null,
        patientId: recipient.patient?.id ?? null,
        templateId,
        toNumber: recipient.to,
        body: rendered.body,
        segments: rendered.segments,
        encoding: rendered.encoding,
        suppressed: suppressed ?? undefined,
      },
      tx,
    );
    if (suppressed !== null) return { status: 'suppressed', messageId: row.id, reason: suppressed };
    await this.jobs.record(scope, row.id, tx);
    return { status: 'queued', messageId: row.id };
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
