import { ConflictException, NotFoundException } from '../../../common/http/problem';
import type { SequenceStatus } from './sequence-rules';

export class SequenceNotFoundException extends NotFoundException {
  constructor() {
    super('The sequence');
  }
}

export class SequenceNotActiveException extends ConflictException {
  constructor(status: SequenceStatus) {
    super('sequence_not_active', 'Sequence not active', `Only an active sequence takes enrolments; this one is ${status}`, {
      sequenceStatus: status,
    });
  }
}

export class SequenceTransitionException extends ConflictException {
  constructor(detail: string, field: 'status' | 'steps') {
    super('invalid_transition', 'Invalid transition', detail, { errors: [{ field, message: detail }] });
  }
}
