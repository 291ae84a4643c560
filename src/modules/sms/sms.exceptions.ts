import { NotFoundException } from '../../common/http/problem';

export class SmsTemplateNotFoundException extends NotFoundException {
  constructor() {
    super('The SMS template');
  }
}
