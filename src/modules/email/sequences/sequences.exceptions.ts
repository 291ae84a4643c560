import { ConflictProblem, ResourceNotFoundProblem } from '../../../common/http/errors/problem';
import type { SequenceStatus } from './sequence-rules';

export class SequenceNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The sequence');
  }
}

export class SequenceNotActiveException extends ConflictProblem {
  constructor(status: SequenceStatus) {
    super('sequence_not_active', 'Sequence not active', `Only an active sequence takes enrolments; this one is ${status}`, {
      sequenceStatus: status,
    });
  }
}

export class SequenceTransitionException extends ConflictProblem {
  constructor(detail: string, field: 'status' | 'steps') {
    super('invalid_transition', 'Invalid transition', detail, { errors: [{ field, message: detail }] });
  }
}
