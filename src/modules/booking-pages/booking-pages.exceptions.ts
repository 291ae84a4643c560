import { ResourceNotFoundProblem } from '../../common/http/errors/problem';

export class SchedulerNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The scheduler');
  }
}
