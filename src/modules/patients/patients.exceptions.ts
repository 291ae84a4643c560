import { ApiException, ConflictProblem, FieldError, ResourceNotFoundProblem } from '../../common/http/errors/problem';

/** A body's `field` holds an id that names no patient of the caller's tenant and mode (a 400, not a 404). */
export function noSuchPatient(field: string): FieldError {
  return { field, message: 'names no patient of this tenant and mode' };
}

export class PatientNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The patient');
  }
}

export class ExternalIdTakenException extends ConflictProblem {
  constructor() {
    super('external_id_taken', 'External id taken', 'Another patient of this tenant and mode has this externalId', {
      errors: [{ field: 'externalId', message: 'is already used by another patient' }],
    });
  }
}

export class PatientPreconditionFailedException extends ApiException {
  constructor() {
    super(412, 'precondition_failed', 'Precondition failed', 'The patient changed since it was read; GET it again for the current ETag');
  }
}

export class CustomFieldKeyTakenException extends ConflictProblem {
  constructor(key: string) {
    super('custom_field_key_taken', 'Custom field exists', `A custom field with the key '${key}' already exists`, {
      errors: [{ field: 'key', message: 'is already defined' }],
    });
  }
}

export class EncounterExistsException extends ConflictProblem {
  constructor() {
    super('encounter_exists', 'Encounter exists', 'An encounter for this appointment is already recorded', {
      errors: [{ field: 'appointmentId', message: 'already has an encounter' }],
    });
  }
}

export class ImportNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The import job');
  }
}
