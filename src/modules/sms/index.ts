// What other modules may use of sms: the Nest module.
export { SmsModule } from './sms.module';
