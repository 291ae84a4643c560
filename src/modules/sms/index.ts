// What other modules may use of sms: the Nest modules, and the service that queues a text inside the
// caller's transaction (SmsMessagesService.queue) with its input and the message it answers.
export { SmsModule } from './sms.module';
export { SmsChannel } from './sms-channel';
export { SmsMessagesService } from './sms-messages.service';
export type { QueueSmsInput } from './sms-messages.service';
export { SmsMessageDto } from './dto/sms-message.dto';
export { SmsTemplatesService } from './sms-templates.service';
export { SmsConfirmations } from './sms-confirmations';
export { SmsConsent } from './sms-consent.service';
export { IsTextableNumber } from './textable-numbers';
