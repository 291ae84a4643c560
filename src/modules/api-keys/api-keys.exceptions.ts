import { ConflictProblem } from '../../common/http/errors/problem';

/** A mode must keep one active OWNER key: without it nobody could manage that mode's keys through the API. */
export class LastOwnerKeyException extends ConflictProblem {
  constructor(mode: string) {
    super(
      'last_owner_key',
      'Last owner key',
      `This is the last active OWNER key of ${mode} mode; create another OWNER key before revoking it (operators: cli.js keys:create)`,
    );
  }
}
