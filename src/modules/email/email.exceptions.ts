import { ResourceNotFoundProblem } from '../../common/http/problem';

export class EmailTemplateNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The email template');
  }
}

export class EmailMessageNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The email message');
  }
}
