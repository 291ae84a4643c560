import { ConflictException, NotFoundException } from '../../common/http/problem';

export class FormNotFoundException extends NotFoundException {
  constructor() {
    super('The form');
  }
}

export class SubmissionNotFoundException extends NotFoundException {
  constructor() {
    super('The submission');
  }
}

export class FormInactiveException extends ConflictException {
  constructor() {
    super('form_inactive', 'Form inactive', 'This form is not active and accepts no submissions');
  }
}
