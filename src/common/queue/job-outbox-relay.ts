import { Injectable } from '@nestjs/common';
import { DependencyStatus } from '../observability/dependency-status';
import { JobOutbox } from './job-outbox';
import { JobQueue } from './job-queue';
import { PeriodicSweep } from './periodic-task';

const INTERVAL_MS = 500;
const BATCH = 500;

/**
 * Adds the jobs of the job outbox that their own process did not add (it died right after the commit,
 * Redis was away, or the transaction was opened outside Transactions.run), in every worker process. Any
 * number of relays may run at once: each row is leased to one. While Redis is away a pass costs nothing.
 */
@Injectable()
export class JobOutboxRelay extends PeriodicSweep {
  constructor(
    private readonly outbox: JobOutbox,
    private readonly queue: JobQueue,
    dependencies: DependencyStatus,
  ) {
    super(JobOutboxRelay.name, INTERVAL_MS, dependencies);
  }

  /** One pass; answers how many jobs it added. */
  async runOnce(): Promise<number> {
    if (this.queue.available && !(await this.queue.holdsOutboxMarker())) {
      // A Redis without the marker lost (or never had) the jobs added to it: they are added again, then it gets the marker.
      const again = await this.outbox.readdAll();
      await this.queue.setOutboxMarker();
      if (again) this.logger.warn(`Redis holds none of the jobs added to it: ${again} unfinished jobs of the job outbox are added again`);
    }
    let added = 0;
    while (this.queue.available) {
      const rows = await this.outbox.take(BATCH);
      const failed = await this.outbox.dispatch(rows, true);
      added += rows.length - failed;
      if (rows.length < BATCH || failed) break;
    }
    return added;
  }
}
