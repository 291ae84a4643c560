import { ResourceNotFoundProblem } from '../../common/http/errors/problem';

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
