import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DependencyStatus } from '../observability/dependency-status';
import { clock } from '../time/clock';
import { describeError } from './job-handler';
import { JobOutbox } from './job-outbox';

/**
 * Keeps delayed jobs due by the clock rather than by the real time the queue counts: whenever this
 * process's clock moves (a test), and at start-up when it is moved (a worker run ahead of the process that
 * added the jobs), every delayed job is timed again from its row's due time (JobOutbox.retime). With the
 * clock unmoved, as in production, the two agree and this does nothing.
 */
@Injectable()
export class DueJobs implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(DueJobs.name);
  private stopListening?: () => void;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly outbox: JobOutbox,
    private readonly dependencies: DependencyStatus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.stopListening = clock.onMove(() => void this.retime());
    if (clock.offsetMs() !== 0) await this.retime();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopListening?.();
    await this.running;
  }

  /** Times the delayed jobs again; one pass at a time, each after the move it follows. */
  retime(): Promise<void> {
    this.running = this.running.then(async () => {
      try {
        await this.outbox.retime();
      } catch (err) {
        if (!this.dependencies.reportFailure(err)) this.logger.warn(`timing the delayed jobs again failed: ${describeError(err)}`);
      }
    });
    return this.running;
  }
}
