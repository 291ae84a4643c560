import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import MailComposer from 'nodemailer/lib/mail-composer';
import { parseServerMessageId } from 'nodemailer/lib/smtp-connection/server-message-id';
import { logTransport, MessageChannel, MessageTransport } from '../../common/messaging';
import { QUEUES, QueueName } from '../../common/queue/queues';
import { AppConfig } from '../../config/app-config';
import { TenantScope } from '../../database/tenant-owned.entity';
import { EventsService } from '../events';
import { PatientsService } from '../patients';
import { emailSuppression } from './email-consent';
import { EmailHeaders } from './email-headers.service';
import { toMessageDto } from './email-messages.service';
import { EmailMessagesRepository } from './email-messages.repository';
import { EmailSendJobs } from './email-send-jobs.service';
import { EmailMessageEntity } from './entities/email-message.entity';
import { SmtpMailer, SmtpSendError } from './smtp-mailer';

/**
 * Email's side of the one message sender (MessageSender): SMTP_URL for live messages, TEST_SMTP_URL for
 * test-mode ones, the patient's email opt-out as the consent rule. Only the server's 250 to the end of DATA
 * counts as accepted; a 5xx is a refusal for good; anything else (4xx, connection lost, no answer) is
 * retried, with the same Message-ID.
 */
@Injectable()
export class EmailChannel implements MessageChannel<EmailMessageEntity>, OnApplicationShutdown {
  readonly name = 'email';
  readonly relays: { live?: MessageTransport<EmailMessageEntity>; test?: MessageTransport<EmailMessageEntity> } = {};
  readonly log = logTransport('email', 'SMTP_URL is not set');
  private readonly logger = new Logger(EmailChannel.name);
  private readonly mailers: SmtpMailer[] = [];

  constructor(
    private readonly config: AppConfig,
    readonly messages: EmailMessagesRepository,
    private readonly patients: PatientsService,
    private readonly events: EventsService,
    private readonly jobs: EmailSendJobs,
    private readonly headers: EmailHeaders,
  ) {
    const { smtpUrl, testSmtpUrl } = config.email;
    if (smtpUrl) this.relays.live = this.smtp(smtpUrl);
    if (testSmtpUrl) this.relays.test = this.smtp(testSmtpUrl);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.mailers.map((mailer) => mailer.close()));
  }

  claim(scope: TenantScope, id: string) {
    return this.messages.claim(scope, id);
  }

  async suppression(scope: TenantScope, message: EmailMessageEntity, tx: EntityManager): Promise<string | null> {
    return emailSuppression(message.patientId ? await this.patients.find(scope, message.patientId, tx) : null);
  }

  retryDelayMs(attemptsMade: number): number {
    return this.jobs.retryDelayMs(attemptsMade);
  }

  async recordEvent(scope: TenantScope, event: 'sent' | 'failed', message: EmailMessageEntity, tx: EntityManager): Promise<void> {
    await this.events.record(scope, `email.${event}`, toMessageDto(message), tx);
  }

  private smtp(url: string): MessageTransport<EmailMessageEntity> {
    // One connection per job a worker runs at once.
    const mailer = new SmtpMailer(url, QUEUES[QueueName.EmailSends].worker.concurrency);
    this.mailers.push(mailer);
    return {
      name: 'smtp',
      send: async (_scope, row) => {
        try {
          const accepted = await mailer.send({ from: this.headers.envelopeFrom, to: row.toAddress }, await this.compose(row));
          return parseServerMessageId(accepted.response) ?? accepted.serverMessageId ?? queuedAs(accepted.response);
        } catch (err) {
          // The server may have it (RFC 1047); sending it again may deliver it twice, never losing it.
          if (err instanceof SmtpSendError && err.stage === 'unknown') {
            this.logger.warn(`email ${row.id}: no reply to the end of DATA; it is sent again (same Message-ID)`);
          }
          throw err;
        }
      },
    };
  }

  private compose(row: EmailMessageEntity): Promise<Buffer> {
    return new MailComposer({
      from: this.config.email.from,
      to: row.toAddress,
      subject: row.subject,
      html: row.htmlBody ?? undefined,
      text: row.textBody ?? undefined,
      attachments: row.attachments?.map(({ filename, contentType, content }) => ({ filename, contentType, content })),
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
