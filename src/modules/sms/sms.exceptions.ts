import { ResourceNotFoundProblem } from '../../common/http/problem';

export class SmsTemplateNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The SMS template');
  }
}
