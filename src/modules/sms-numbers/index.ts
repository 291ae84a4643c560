// What other modules may use of sms-numbers: the Nest module, its service and what the service answers.
export { SmsNumbersModule } from './sms-numbers.module';
export { SENDER_NUMBER_PATTERN, SmsNumbersService, SmsNumberTakenError } from './sms-numbers.service';
export type { SmsNumberAssignment } from './sms-numbers.service';
