import { clock } from '../../src/common/time/clock';
import { NO_RATE_LIMITS } from './patients';
import { BuiltProcess } from './processes';
import { AppFixture, useApp } from './use-app';

/**
 * For the crash suites: an app that records work but runs no workers (WORKERS=off), on a Redis prefix of the
 * suite's own, and `startWorker()`, which starts `dist/worker.js` on that prefix with short queue locks, so
 * that a SIGKILLed worker's jobs are found stalled within seconds. Workers still running when the suite ends
 * are killed. `clockAheadMs`: how far the workers' clock runs ahead of the API's.
 */
export function useAppWithWorkerProcesses(name: string, clockAheadMs = 0): { suite: AppFixture; startWorker: () => BuiltProcess } {
  const prefix = `${process.env.REDIS_PREFIX}:${name}`;
  const workers: BuiltProcess[] = [];
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off', REDIS_PREFIX: prefix });
  suite.onClose(async () => {
    for (const w of workers) if (w.running) await w.stop('SIGKILL');
  });
  const startWorker = (): BuiltProcess => {
    const worker = BuiltProcess.start('worker.js', {
      REDIS_PREFIX: prefix,
      CLOCK_OFFSET_MS: String(clock.offsetMs() + clockAheadMs),
      QUEUE_LOCK_SECONDS: '2',
      QUEUE_STALLED_CHECK_SECONDS: '1',
    });
    workers.push(worker);
    return worker;
  };
  return { suite, startWorker };
}
