import { ResourceNotFoundProblem } from '../../common/http/errors/problem';

export class SmsTemplateNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The SMS template');
  }
}

export class SmsMessageNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The SMS message');
  }
}
