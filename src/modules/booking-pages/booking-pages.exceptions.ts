import { ResourceNotFoundProblem } from '../../common/http/problem';

export class SchedulerNotFoundException extends ResourceNotFoundProblem {
  constructor() {
    super('The scheduler');
  }
}
