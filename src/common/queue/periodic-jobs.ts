import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DependencyStatus } from '../observability/dependency-status';
import { describeError } from './job-handler';
import { JobQueue } from './job-queue';

/**
 * Puts the periodic jobs' schedulers (PERIODIC_JOBS) in Redis from every worker process: at start-up, and
 * each time the connection to Redis is ready again, as a Redis that restarted without its data has lost them.
 * An upsert of a scheduler that exists changes nothing, so the jobs still run once per interval in the cluster.
 */
@Injectable()
export class PeriodicJobs implements OnApplicationBootstrap {
  private readonly logger = new Logger(PeriodicJobs.name);

  constructor(
    private readonly queue: JobQueue,
    private readonly dependencies: DependencyStatus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.queue.onReady(() => void this.schedule());
    if (this.queue.available) await this.schedule();
  }

  private async schedule(): Promise<void> {
    try {
      await this.queue.schedulePeriodicJobs();
    } catch (err) {
      // Redis went away meanwhile: its return calls this again.
      if (!this.dependencies.reportFailure(err)) this.logger.warn(`scheduling the periodic jobs failed: ${describeError(err)}`);
    }
  }
}
