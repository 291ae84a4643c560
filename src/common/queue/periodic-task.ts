import { isUnavailable } from '../observability/dependency-status';

/**
 * Runs `pass` every `intervalMs` (measured from the end of the previous pass, so passes never overlap)
 * until `stop()`, which waits for a running pass to finish. The timer does not keep the process alive.
 * For the sweeps and relays that every worker process runs beside its queue workers.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  /** The last pass failed for want of PostgreSQL or Redis: the next such failure is not told again. */
  private waitingForDependency = false;

  constructor(
    private readonly intervalMs: number,
    private readonly pass: () => Promise<void>,
    /** Told of a pass that threw; the next pass runs as planned. */
    private readonly onError: (err: unknown) => void,
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
        .then(() => void (this.waitingForDependency = false))
        .catch((err: unknown) => {
          // An outage fails every pass until it ends: it is told once here (and by DependencyStatus), not every interval.
          const unavailable = isUnavailable(err) || isUnavailable((err as { driverError?: unknown })?.driverError);
          if (!(unavailable && this.waitingForDependency)) this.onError(err);
          this.waitingForDependency = unavailable;
        })
        .finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }
}
