import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Job } from 'bullmq';
import MailComposer from 'nodemailer/lib/mail-composer';
import { parseServerMessageId } from 'nodemailer/lib/smtp-connection/server-message-id';
import { deliveryFor, errorOnGivingUp, isLastTry, recordAcceptance } from '../../common/messaging';
import { JobFailure, OnJob, OnJobFailed } from '../../common/queue/job-handler';
import { EmailSendPayload, JobName, QUEUES, QueueName } from '../../common/queue/queues';
import { clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { EventsService } from '../events';
import { PatientsService } from '../patients';
import { EmailHeaders } from './email-headers.service';
import { toMessageDto } from './email-messages.service';
import { EmailMessagesRepository } from './email-messages.repository';
import { EmailSendJobs } from './email-send-jobs.service';
import { EmailMessageEntity, EmailTransportName } from './entities/email-message.entity';
import { SmtpMailer, SmtpSendError } from './smtp-mailer';

/**
 * Sends one message per job, at least once: nothing the relay has not accepted is ever recorded as sent.
 * 1. a settled row (sent, failed, suppressed) ends the job;
 * 2. a patient who opted out meanwhile makes it `suppressed`;
 * 3. where it goes is deliveryFor's one decision: a test-mode message is captured (`transport: "test"`) or
 *    goes to TEST_SMTP_URL, never to SMTP_URL; a live one without SMTP_URL goes to the log;
 * 4. the row is claimed (`queued → sending`, committed) before the SMTP transaction starts; a row the
 *    job finds `sending` was claimed by a run whose worker died before it recorded the server's answer:
 *    it is claimed again and sent again, with the same Message-ID. BullMQ's job lock keeps a live
 *    worker's message from being taken over;
 * 5. only the server's 250 to the end of DATA makes it `sent` (+ `email.sent`; when PostgreSQL cannot take that
 *    record, the job's data keeps it and the next try records it without sending); a 5xx makes it `failed`
 *    (+ `email.failed`); anything else (4xx, connection lost, no answer) puts it back to `queued` for a
 *    retry. A duplicate therefore needs the worker to stop between the server's 250 and that record, or
 *    a connection lost between the end of DATA and the reply.
 * Logs carry message ids and SMTP codes only, never addresses or content.
 */
@Injectable()
export class EmailSender implements OnApplicationShutdown {
  private readonly logger = new Logger(EmailSender.name);
  private readonly mailer?: SmtpMailer;
  private readonly testMailer?: SmtpMailer;

  constructor(
    private readonly config: AppConfig,
    private readonly transactions: Transactions,
    private readonly messages: EmailMessagesRepository,
    private readonly patients: PatientsService,
    private readonly events: EventsService,
    private readonly jobs: EmailSendJobs,
    private readonly headers: EmailHeaders,
  ) {
    const { smtpUrl, testSmtpUrl } = config.email;
    // One connection per job a worker runs at once.
    const connections = QUEUES[QueueName.EmailSends].worker.concurrency;
    if (smtpUrl) this.mailer = new SmtpMailer(smtpUrl, connections);
    if (testSmtpUrl) this.testMailer = new SmtpMailer(testSmtpUrl, connections);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.mailer?.close(), this.testMailer?.close()]);
  }

  @OnJob(JobName.EmailSend)
  async run(job: Job<EmailSendPayload>): Promise<void> {
    const { messageId, tenantId, mode, acceptedAs } = job.data;
    const scope: TenantScope = { tenantId, mode };
    const row = await this.messages.findById(scope, messageId);
    if (!row) return; // its tenant was deleted
    if (row.status !== 'queued' && row.status !== 'sending') return;
    if (row.status === 'sending' && acceptedAs !== undefined)
      return void (await this.settleSent(scope, row.id, 'sending', acceptedAs || null));

    if (row.patientId) {
      const patient = await this.patients.find(scope, row.patientId);
      if (patient?.emailOptOut) {
        await this.messages.markSuppressed(scope, row.id);
        return;
      }
    }
    const delivery = deliveryFor(mode, { live: this.mailer, test: this.testMailer });
    if (delivery.to !== 'relay') return this.settleUnsent(scope, row, delivery.to);
    const mailer = delivery.relay;

    const raw = await this.compose(row);
    if (!(await this.messages.claim(scope, row.id, row.status))) return; // settled meanwhile
    if (row.status === 'sending') {
      this.logger.warn(`email ${row.id}: its last try stopped before the server's answer was recorded; sending it again`);
    }
    try {
      const accepted = await mailer.send({ from: this.headers.envelopeFrom, to: row.toAddress }, raw);
      const smtpId = parseServerMessageId(accepted.response) ?? accepted.serverMessageId ?? queuedAs(accepted.response);
      await recordAcceptance(job, smtpId, () => this.settleSent(scope, row.id, 'sending', smtpId));
    } catch (err) {
      if (!(err instanceof SmtpSendError)) throw err; // our own failure (database, Redis): retried as it is
      await this.onSmtpError(job, scope, row, err);
    }
  }

  /** BullMQ gave up on the job (attempts used up, or it stalled too often): the message ends failed. */
  @OnJobFailed(JobName.EmailSend)
  async failed(payload: EmailSendPayload, _jobId: string, reason: string): Promise<void> {
    const scope: TenantScope = { tenantId: payload.tenantId, mode: payload.mode };
    const row = await this.messages.findById(scope, payload.messageId);
    const error = errorOnGivingUp(row, reason);
    if (row && error !== null) await this.settleFailed(scope, row.id, error);
  }

  private async onSmtpError(job: Job<EmailSendPayload>, scope: TenantScope, row: EmailMessageEntity, err: SmtpSendError): Promise<void> {
    const code = err.responseCode ? `SMTP ${err.responseCode}` : 'SMTP connection error';
    if (err.stage === 'unknown') {
      // The server may have it (RFC 1047); sending it again may deliver it twice, never losing it.
      this.logger.warn(`email ${row.id}: no reply to the end of DATA; it is sent again (same Message-ID)`);
    }
    if (isLastTry(job, err.permanent)) {
      await this.settleFailed(scope, row.id, err.message);
      throw new JobFailure(`${code}: the message failed`, true);
    }
    await this.messages.markRetry(scope, row.id, err.message, new Date(clock.nowMs() + this.jobs.retryDelayMs(job.attemptsMade + 1)));
    throw new JobFailure(`${code}: retrying`);
  }

  /** A message that goes to no relay: captured in test mode (`transport: "test"`), logged by id in live mode without SMTP_URL. */
  private async settleUnsent(scope: TenantScope, row: EmailMessageEntity, to: 'capture' | 'log'): Promise<void> {
    const transport = to === 'capture' ? 'test' : 'log';
    const settled = await this.settleSent(scope, row.id, row.status === 'sending' ? 'sending' : 'queued', null, transport);
    // Ids only: the address and the content are patient data.
    if (settled && to === 'log') this.logger.log(`email ${row.id} delivered to the log transport (SMTP_URL is not set)`);
  }

  private async settleSent(
    scope: TenantScope,
    id: string,
    from: 'queued' | 'sending',
    smtpMessageId: string | null,
    transport: EmailTransportName = 'smtp',
  ): Promise<boolean> {
    return this.transactions.run(async (tx) => {
      const row = await this.messages.markSent(scope, id, from, { transport, smtpMessageId, lastError: null }, tx);
      if (row) await this.events.record(scope, 'email.sent', toMessageDto(row), tx);
      return row !== null;
    });
  }

  private async settleFailed(scope: TenantScope, id: string, error: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const row = await this.messages.markFailed(scope, id, error, tx);
      if (row) await this.events.record(scope, 'email.failed', toMessageDto(row), tx);
    });
  }

  private compose(row: EmailMessageEntity): Promise<Buffer> {
    return new MailComposer({
      from: this.config.email.from,
      to: row.toAddress,
      subject: row.subject,
      html: row.htmlBody ?? undefined,
      text: row.textBody ?? undefined,
      messageId: this.headers.messageId(row.id),
      date: new Date(), // for mail servers and their real clocks, not a business time
      headers: this.headers.forMessage(row),
    })
      .compile()
      .build();
  }
}

/** The id in a Postfix-style reply (`250 2.0.0 Ok: queued as 4BqVZS1xz1`), when nodemailer's parser found none. */
function queuedAs(response: string): string | null {
  return /queued as\s+<?([^\s>]+)>?/i.exec(response)?.[1]?.slice(0, 200) ?? null;
}
