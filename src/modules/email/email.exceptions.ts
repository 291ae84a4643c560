import { NotFoundException } from '../../common/http/problem';

export class EmailTemplateNotFoundException extends NotFoundException {
  constructor() {
    super('The email template');
  }
}

export class EmailMessageNotFoundException extends NotFoundException {
  constructor() {
    super('The email message');
  }
}
