import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { logTransport, MessageChannel, MessageTransport } from '../../common/messaging';
import { AppConfig } from '../../config/app-config';
import { TenantScope } from '../../database/tenant-owned.entity';
import { EventsService } from '../events';
import { PatientsService } from '../patients';
import { SmsMessageEntity } from './entities/sms-message.entity';
import { SmsConsent } from './sms-consent.service';
import { toSmsMessageDto } from './sms-messages.service';
import { SmsMessagesRepository } from './sms-messages.repository';
import { SmsSendJobs } from './sms-send-jobs.service';
import { TWILIO_STATUS_PATH } from './twilio-webhooks.controller';
import { TwilioTransport } from './twilio-transport';

/**
 * SMS's side of the one message sender (MessageSender): Twilio for live messages (SMS has no staging relay:
 * test-mode texts are always captured), SmsConsent's rule (the patient's flag, or a STOP from the phone to
 * the sending number). The provider's acceptance is a sid; a 4xx other than 429 is a refusal for good; a
 * 5xx, 429, timeout or lost connection is retried.
 */
@Injectable()
export class SmsChannel implements MessageChannel<SmsMessageEntity> {
  readonly name = 'sms';
  readonly relays: { live?: MessageTransport<SmsMessageEntity> } = {};
  readonly log = logTransport('sms', 'SMS_PROVIDER=log');

  constructor(
    config: AppConfig,
    readonly messages: SmsMessagesRepository,
    private readonly patients: PatientsService,
    private readonly consent: SmsConsent,
    private readonly events: EventsService,
    private readonly jobs: SmsSendJobs,
  ) {
    const { provider, twilio, timeoutMs } = config.sms;
    if (provider === 'twilio' && twilio) {
      const transport = new TwilioTransport(twilio, timeoutMs);
      const statusCallback = `${config.http.publicUrl}${TWILIO_STATUS_PATH}`;
      this.relays.live = {
        name: 'twilio',
        send: (_scope, row) => transport.send({ to: row.toNumber, from: row.fromNumber!, body: row.body, statusCallback }),
      };
    }
  }

  /** A try that goes to Twilio records the number it is sent from. */
  async claim(scope: TenantScope, id: string, toRelay: boolean) {
    return this.messages.claim(scope, id, toRelay ? await this.consent.fromNumber(scope) : null);
  }

  async suppression(scope: TenantScope, message: SmsMessageEntity, tx: EntityManager): Promise<string | null> {
    const patient = message.patientId ? await this.patients.find(scope, message.patientId, tx) : null;
    return this.consent.suppression(message.toNumber, patient, await this.consent.fromNumber(scope, tx), tx);
  }

  retryDelayMs(attemptsMade: number): number {
    return this.jobs.retryDelayMs(attemptsMade);
  }

  async recordEvent(scope: TenantScope, event: 'sent' | 'failed', message: SmsMessageEntity, tx: EntityManager): Promise<void> {
    await this.events.record(scope, `sms.${event}`, toSmsMessageDto(message), tx);
  }
}
