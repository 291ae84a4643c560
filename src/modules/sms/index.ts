// What other modules may use of sms: the Nest module.
export { SmsModule } from './sms.module';
export { SmsTemplatesService } from './sms-templates.service';
