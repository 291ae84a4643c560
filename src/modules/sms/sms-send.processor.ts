import { Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { deliveryFor, errorOnGivingUp, isLastTry, recordAcceptance } from '../../common/messaging';
import { JobFailure, OnJob, OnJobFailed } from '../../common/queue/job-handler';
import { JobName, SmsSendPayload } from '../../common/queue/queues';
import { AppConfig } from '../../config/app-config';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { EventsService } from '../events';
import { PatientsService } from '../patients';
import { SmsTransportName } from './entities/sms-message.entity';
import { SmsConsent } from './sms-consent.service';
import { toSmsMessageDto } from './sms-messages.service';
import { SmsMessagesRepository } from './sms-messages.repository';
import { TWILIO_STATUS_PATH } from './twilio-webhooks.controller';
import { SmsProviderError, TwilioTransport } from './twilio-transport';

/**
 * Sends one message per job, at least once: nothing the provider has not accepted is recorded as sent.
 * 1. the row is claimed (`queued → sending`, committed) in one statement; a settled row ends the job, and
 *    a row already `sending` was claimed by a run whose worker died before recording the answer: it is
 *    claimed and sent again. BullMQ's job lock keeps a live worker's message from being taken over;
 * 2. an opt-out meanwhile (SmsConsent's rule: the patient's flag, or a STOP from the phone to the sending
 *    number) makes it `suppressed`;
 * 3. where it goes is deliveryFor's one decision: a test-mode message is captured (`transport: "test"`) and
 *    never reaches the provider; with SMS_PROVIDER=log, `transport: "log"` and a log line naming its id;
 * 4. otherwise the provider is called;
 * 5. the provider's acceptance makes it `sent` (+ `sms.sent`; when PostgreSQL cannot take that record, the
 *    job's data keeps it and the next try records it without sending); a refusal of the message itself (4xx)
 *    makes it `failed` (+ `sms.failed`); a 5xx, 429, timeout or lost connection puts it back to `queued`
 *    for a retry with backoff, until the attempts are used up.
 * Logs carry message ids and provider status codes only, never numbers or text.
 */
@Injectable()
export class SmsSender {
  private readonly logger = new Logger(SmsSender.name);
  private readonly twilio?: TwilioTransport;
  private readonly statusCallback: string;

  constructor(
    config: AppConfig,
    private readonly transactions: Transactions,
    private readonly messages: SmsMessagesRepository,
    private readonly patients: PatientsService,
    private readonly consent: SmsConsent,
    private readonly events: EventsService,
  ) {
    const { provider, twilio, timeoutMs } = config.sms;
    if (provider === 'twilio' && twilio) this.twilio = new TwilioTransport(twilio, timeoutMs);
    this.statusCallback = `${config.http.publicUrl}${TWILIO_STATUS_PATH}`;
  }

  @OnJob(JobName.SmsSend)
  async run(job: Job<SmsSendPayload>): Promise<void> {
    const { messageId, tenantId, mode, acceptedAs } = job.data;
    const scope: TenantScope = { tenantId, mode };
    if (acceptedAs !== undefined && (await this.messages.findById(scope, messageId))?.status === 'sending') {
      return void (await this.settleSent(scope, messageId, 'twilio', acceptedAs || null));
    }
    // SMS has no staging relay: test-mode texts are always captured.
    const delivery = deliveryFor(mode, { live: this.twilio });
    const twilio = delivery.to === 'relay' ? delivery.relay : undefined;
    const sendingNumber = await this.consent.fromNumber(scope);
    const from = twilio ? sendingNumber : null;
    const claimed = await this.messages.claim(scope, messageId, from);
    if (!claimed) return; // settled, or its tenant was deleted
    const { row } = claimed;

    const patient = row.patientId ? await this.patients.find(scope, row.patientId) : null;
    const suppressed = await this.consent.suppression(row.toNumber, patient, sendingNumber);
    if (suppressed !== null) {
      await this.transactions.run((tx) => this.messages.markSuppressed(scope, row.id, suppressed, tx));
      return;
    }
    if (delivery.to === 'capture') return void (await this.settleSent(scope, row.id, 'test', null));
    if (!twilio) {
      // Ids only: the number and the text are patient data.
      if (await this.settleSent(scope, row.id, 'log', null))
        this.logger.log(`sms ${row.id} delivered to the log transport (SMS_PROVIDER=log)`);
      return;
    }
    if (claimed.from === 'sending') {
      this.logger.warn(`sms ${row.id}: its last try stopped before the provider's answer was recorded; sending it again`);
    }
    try {
      const sid = await twilio.send({ to: row.toNumber, from: from!, body: row.body, statusCallback: this.statusCallback });
      await recordAcceptance(job, sid, () => this.settleSent(scope, row.id, 'twilio', sid));
    } catch (err) {
      if (!(err instanceof SmsProviderError)) throw err; // our own failure (database, Redis): retried as it is
      if (isLastTry(job, err.permanent)) {
        await this.settleFailed(scope, row.id, err.message);
        throw new JobFailure(`${err.message}: the message failed`, true);
      }
      await this.messages.markRetry(scope, row.id, err.message);
      throw new JobFailure(`${err.message}: retrying`);
    }
  }

  /** BullMQ gave up on the job (attempts used up, or it stalled too often): the message ends failed. */
  @OnJobFailed(JobName.SmsSend)
  async failed(payload: SmsSendPayload, _jobId: string, reason: string): Promise<void> {
    const scope: TenantScope = { tenantId: payload.tenantId, mode: payload.mode };
    const row = await this.messages.findById(scope, payload.messageId);
    const error = errorOnGivingUp(row, reason);
    if (row && error !== null) await this.settleFailed(scope, row.id, error);
  }

  private settleSent(scope: TenantScope, id: string, transport: SmsTransportName, sid: string | null): Promise<boolean> {
    return this.transactions.run(async (tx) => {
      const settled = await this.messages.markSent(scope, id, { transport, providerMessageId: sid }, tx);
      if (settled) await this.events.record(scope, 'sms.sent', toSmsMessageDto(settled), tx);
      return settled !== null;
    });
  }

  private async settleFailed(scope: TenantScope, id: string, error: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const row = await this.messages.markFailed(scope, id, error, tx);
      if (row) await this.events.record(scope, 'sms.failed', toSmsMessageDto(row), tx);
    });
  }
}
