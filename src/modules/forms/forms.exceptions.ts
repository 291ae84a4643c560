import { ConflictProblem, ResourceNotFoundProblem } from '../../common/http/errors/problem';

export class FormNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The form');
  }
}

export class SubmissionNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The submission');
  }
}

export class FormInactiveException extends ConflictProblem {
  constructor() {
    super('form_inactive', 'Form inactive', 'This form is not active and accepts no submissions');
  }
}
