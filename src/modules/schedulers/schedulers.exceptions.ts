import { NotFoundException } from '../../common/http/problem';

export class SchedulerNotFoundException extends NotFoundException {
  constructor() {
    super('The scheduler');
  }
}
