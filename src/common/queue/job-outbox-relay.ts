import { Injectable, Logger } from '@nestjs/common';
import { OnJob } from './job-handler';
import { JobOutbox } from './job-outbox';
import { JobQueue } from './job-queue';
import { JobName } from './queues';

const BATCH = 500;

/**
 * Adds the jobs of the job outbox that their own process did not add (it died right after the commit,
 * Redis was away, or the transaction was opened outside Transactions.run): a periodic job, so one relay
 * runs per interval in the cluster. Any number may run at once all the same: each row is leased to one.
 * While Redis is away it does not run at all (its scheduler lives in Redis), and nothing could be added.
 */
@Injectable()
export class JobOutboxRelay {
  private readonly logger = new Logger(JobOutboxRelay.name);

  constructor(
    private readonly outbox: JobOutbox,
    private readonly queue: JobQueue,
  ) {}

  /** One pass; answers how many jobs it added. */
  @OnJob(JobName.JobOutboxRelay)
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
