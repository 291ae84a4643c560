import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { QueueOutcome } from '../../common/messaging';
import { TenantScope } from '../../database/tenant-owned.entity';
import { EmailMessagesService, QueueEmailInput } from '../email';
import { QueueSmsInput, SmsMessagesService } from '../sms';

/** What a message of each channel is queued from. */
export interface QueueMessageInputs {
  email: QueueEmailInput;
  sms: QueueSmsInput;
}

export type MessageChannelName = keyof QueueMessageInputs;

/**
 * The one way another module has a message sent: `queue(scope, channel, input, tx)` writes it in the
 * caller's transaction and answers what became of it (queued, suppressed for an opt-out, or refused), which
 * the caller maps to its own state. Sending is MessageSender's, one state machine for both channels.
 */
@Injectable()
export class MessagingService {
  constructor(
    private readonly email: EmailMessagesService,
    private readonly sms: SmsMessagesService,
  ) {}

  queue<C extends MessageChannelName>(
    scope: TenantScope,
    channel: C,
    input: QueueMessageInputs[C],
    tx: EntityManager,
  ): Promise<QueueOutcome> {
    return channel === 'email' ? this.email.queue(scope, input, tx) : this.sms.queue(scope, input, tx);
  }
}
