// What other modules may use of email: the Nest modules and the services that queue messages and check templates.
export { EmailModule } from './email.module';
export { EmailChannel } from './email-channel';
export { EmailMessagesService } from './email-messages.service';
export type { QueueEmailInput } from './email-messages.service';
export type { EmailAttachment } from './entities/email-message.entity';
export type { EmailParts } from './email-rendering';
export { EmailTemplatesService } from './email-templates.service';
export { SequencesModule } from './sequences/sequences.module';
export { SequencesWorkersModule } from './sequences/sequences-workers.module';
export { EmailBodyRetention } from './email-body-retention.service';
