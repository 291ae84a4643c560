import type { INestApplicationContext } from '@nestjs/common';

/**
 * SIGTERM/SIGINT: close the app (stop accepting, finish in-flight requests and jobs, flush buffered
 * writes through the shutdown hooks), stop what this process started, exit 0.
 */
export function closeOnSignals(app: INestApplicationContext, stopInfrastructure: () => Promise<void>): void {
  let closing = false;
  const close = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    try {
      await app.close();
      await stopInfrastructure();
      process.exit(0);
    } catch (err) {
      process.stderr.write(`shutdown failed: ${(err as Error).message}\n`);
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void close());
  process.once('SIGINT', () => void close());
}
