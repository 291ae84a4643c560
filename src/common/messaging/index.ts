export { OutgoingMessageEntity } from './outgoing-message.entity';
export { lastError, OutgoingMessagesRepository } from './outgoing-messages.repository';
export type { OutgoingMessageFilters } from './outgoing-messages.repository';
export { MessageSendJobs } from './message-send-jobs';
export type { MessageSendJobName, SendRetryPolicy } from './message-send-jobs';
export { errorOnGivingUp, isLastTry } from './message-sender';
export { recipientOf, requireExactlyOne } from './recipients';
export type { Recipient } from './recipients';
