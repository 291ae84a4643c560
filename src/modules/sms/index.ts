// What other modules may use of sms: the Nest modules, the service that queues a text inside the
// caller's transaction (SmsMessagesService.queue) with its input and the message it answers, who may be
// texted (SmsConsent), and the signature check of Twilio's webhooks.
export { SmsModule } from './sms.module';
export { SmsChannel } from './sms-channel';
export { SmsMessagesService } from './sms-messages.service';
export type { QueueSmsInput } from './sms-messages.service';
export { E164_PATTERN, SmsMessageDto } from './dto/sms-message.dto';
export { SmsTemplatesService } from './sms-templates.service';
export { SmsConsent } from './sms-consent.service';
export { IsTextableNumber } from './textable-numbers';
export { TWILIO_SIGNED, TwilioSignature } from './twilio-signature';
