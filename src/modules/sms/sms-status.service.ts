import { Injectable } from '@nestjs/common';
import { Transactions } from '../../database/transactions';
import { EventsService } from '../events';
import { toSmsMessageDto } from './sms-messages.service';
import { ProviderOutcome, SmsMessagesRepository } from './sms-messages.repository';

const OUTCOMES: Record<string, ProviderOutcome> = { delivered: 'delivered', undelivered: 'undelivered', failed: 'failed' };

/** What Twilio later tells us of a message it took: delivered, undelivered or failed. */
@Injectable()
export class SmsStatusService {
  constructor(
    private readonly transactions: Transactions,
    private readonly messages: SmsMessagesRepository,
    private readonly events: EventsService,
  ) {}

  /** A status callback: delivered, undelivered or failed settle the message (never moving back from one). */
  async apply(fields: Record<string, string>): Promise<void> {
    const outcome = OUTCOMES[fields.MessageStatus?.toLowerCase() ?? ''];
    const sid = fields.MessageSid ?? fields.SmsSid;
    if (!outcome || !sid) return;
    const message = await this.messages.scopeOfProviderMessage(sid.slice(0, 64));
    if (!message) return; // not ours, or its tenant is gone
    const error =
      outcome === 'delivered' ? null : `Twilio reported ${outcome}${fields.ErrorCode ? ` (error ${fields.ErrorCode.slice(0, 16)})` : ''}`;
    await this.transactions.run(async (tx) => {
      const row = await this.messages.applyOutcome(message, message.id, outcome, error, tx);
      if (row) await this.events.record(message, outcome === 'delivered' ? 'sms.delivered' : 'sms.failed', toSmsMessageDto(row), tx);
    });
  }
}
