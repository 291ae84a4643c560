import { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { DependencyStatus } from '../observability/dependency-status';
import { describeError } from './job-handler';

/**
 * Runs `pass` every `intervalMs` (measured from the end of the previous pass, so passes never overlap)
 * until `stop()`, which waits for a running pass to finish. The timer does not keep the process alive.
 * For the sweeps and relays that every worker process runs beside its queue workers.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  constructor(
    private readonly intervalMs: number,
    private readonly pass: () => Promise<void>,
    /** Told of a pass that threw for any reason but an outage; the next pass runs as planned. */
    private readonly onError: (err: unknown) => void,
    /** Told of a pass that failed for want of PostgreSQL or Redis: it logs the outage once per role. */
    private readonly dependencies: DependencyStatus,
  ) {}

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .catch((err: unknown) => {
          // An outage fails every pass until it ends: DependencyStatus tells it once, not each task every interval.
          if (!this.dependencies.reportFailure(err)) this.onError(err);
        })
        .finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }
}

/**
 * A sweep or relay that runs `runOnce` every `intervalMs` in its process from start-up until shutdown (which
 * waits for a running pass). A pass that fails is logged with its error's class and code, an outage once
 * per role by DependencyStatus.
 */
export abstract class PeriodicSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  protected readonly logger: Logger;
  private readonly task: PeriodicTask;

  protected constructor(name: string, intervalMs: number, dependencies: DependencyStatus) {
    this.logger = new Logger(name);
    this.task = new PeriodicTask(
      intervalMs,
      async () => void (await this.runOnce()),
      (err) => this.logger.warn(`pass failed: ${describeError(err)}`),
      dependencies,
    );
  }

  /** One pass. */
  abstract runOnce(): Promise<unknown>;

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }
}

/**
 * Runs `step` with a limit of `size` rows until a step does fewer than its limit or `max` rows are done, so
 * that a pass works through a backlog one bounded batch (one transaction) at a time; answers the rows done.
 */
export async function inBatches(size: number, step: (limit: number) => Promise<number>, max = Infinity): Promise<number> {
  let done = 0;
  while (done < max) {
    const limit = Math.min(size, max - done);
    const n = await step(limit);
    done += n;
    if (n < limit) break;
  }
  return done;
}
