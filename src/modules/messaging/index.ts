// What other modules may use of messaging: the Nest module and the one way to queue a message of any channel.
export { MessagingModule } from './messaging.module';
export { MessagingService } from './messaging.service';
export type { MessageChannelName, QueueMessageInputs } from './messaging.service';
export type { QueueOutcome, RefusalReason } from '../../common/messaging';
