import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DependencyStatus } from '../observability/dependency-status';
import { describeError } from './job-handler';
import { JobQueue } from './job-queue';

/** How soon scheduling is tried again when it failed on a connection that is up. */
const RETRY_MS = 1000;

/**
 * Puts the periodic jobs' schedulers (PERIODIC_JOBS) in Redis from every worker process: at start-up, and
 * each time the connection to Redis is ready again, as a Redis that restarted without its data has lost them.
 * An upsert of a scheduler that exists changes nothing, so the jobs still run once per interval in the cluster.
 */
@Injectable()
export class PeriodicJobs implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PeriodicJobs.name);
  private retry?: NodeJS.Timeout;
  private failing = false;
  private stopped = false;

  constructor(
    private readonly queue: JobQueue,
    private readonly dependencies: DependencyStatus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.queue.onReady(() => void this.schedule());
    if (this.queue.available) await this.schedule();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.retry);
  }

  private async schedule(): Promise<void> {
    clearTimeout(this.retry);
    try {
      await this.queue.schedulePeriodicJobs();
      this.failing = false;
    } catch (err) {
      // Redis went away meanwhile: its return calls this again. Told once however often it is tried again.
      const unavailable = this.dependencies.reportFailure(err);
      if (!unavailable && !this.failing) this.logger.warn(`scheduling the periodic jobs failed: ${describeError(err)}`);
      this.failing = true;
      // Failed on a connection that is up (a Redis Cluster whose nodes are back but still agreeing on their
      // slots): no `ready` follows, so it is tried again.
      if (this.queue.available && !this.stopped) this.retry = setTimeout(() => void this.schedule(), RETRY_MS).unref();
    }
  }
}
