import { NotFoundException } from '../../common/http/problem';

export class SmsTemplateNotFoundException extends NotFoundException {
  constructor() {
    super('The SMS template');
  }
}

export class SmsMessageNotFoundException extends NotFoundException {
  constructor() {
    super('The SMS message');
  }
}
