// What other modules may use of sms-inbound: the Nest module (the API imports it; nothing else does).
export { SmsInboundModule } from './sms-inbound.module';
