import { dataSource } from '../helpers/app';
import type { BulkImportAcceptedDto, BulkImportJobDto } from '../../src/modules/patients/dto/bulk-import.dto';
import { NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';
import { BuiltProcess, sleep } from '../helpers/processes';
import { useApp } from '../helpers/use-app';

const IMPORT = `${PATIENTS}/bulk-import`;
/**
 * The 10,000 rows killed at 2,000 and 5,000, scaled by half to keep the suite short: still ten
 * 500-row batches, each kill in the middle of a batch with committed ones before and after it.
 */
const ROWS = 5_000;
const KILL_AT = [1_000, 2_500];
/** Workers that find a dead worker's job within about 3 s, not the production minute. */
const FAST_STALL_CHECKS = { QUEUE_LOCK_SECONDS: '2', QUEUE_STALLED_CHECK_SECONDS: '1' };

/**
 * An import whose worker (`node dist/worker.js`) is SIGKILLed twice mid-import (about 20 % and
 * 50 % of the rows processed), a new worker started each time. The import resumes from its committed
 * cursor (src/modules/patients/patient-imports.service.ts) and completes: every row written exactly once,
 * one patient.created event per row.
 */
describe('A bulk import survives its worker being killed twice (SIGKILL)', () => {
  // No worker in the test's own app: only the built children run the import.
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off' });
  const workers: BuiltProcess[] = [];
  suite.onClose(() => Promise.all(workers.map((w) => w.stop('SIGKILL'))));

  const status = async (jobId: string): Promise<BulkImportJobDto> => (await suite.api().get<BulkImportJobDto>(`${IMPORT}/${jobId}`)).body;

  /** Starts a worker and answers the import's status once `processed` has reached `atLeast` (polled, 20 ms). */
  async function runUntil(jobId: string, atLeast: number): Promise<{ worker: BuiltProcess; seen: BulkImportJobDto }> {
    const worker = BuiltProcess.start('worker.js', FAST_STALL_CHECKS);
    workers.push(worker);
    for (;;) {
      const seen = await status(jobId);
      if (seen.processed >= atLeast || seen.status === 'completed' || seen.status === 'failed') return { worker, seen };
      if (!worker.running) throw new Error(`the worker exited: ${worker.output}`);
      await sleep(20);
    }
  }

  it('completes with every row written exactly once', async () => {
    const patients = Array.from({ length: ROWS }, (_, i) => ({ firstName: 'Crash', lastName: `Row ${i}`, externalId: `crash-${i}` }));
    const accepted = await suite.api().post<BulkImportAcceptedDto>(IMPORT, { patients });
    expect(accepted.status).toBe(202);
    const { jobId } = accepted.body;

    const kills: number[] = [];
    for (const at of KILL_AT) {
      const { worker, seen } = await runUntil(jobId, at);
      expect(seen.status).toBe('running'); // killed mid-import, not after it
      await worker.stop('SIGKILL');
      kills.push(seen.processed);
      // What the dead worker committed stays; its uncommitted batch is gone.
      const after = await status(jobId);
      expect(after.processed).toBeGreaterThanOrEqual(seen.processed);
      expect(after.processed).toBeLessThan(ROWS);
    }
    expect(kills[0]).toBeGreaterThanOrEqual(KILL_AT[0]);
    expect(kills[0]).toBeLessThan(KILL_AT[1]);
    expect(kills[1]).toBeGreaterThanOrEqual(KILL_AT[1]);

    const { worker } = await runUntil(jobId, ROWS);
    let final = await status(jobId);
    for (let i = 0; final.status === 'running' || final.status === 'queued'; i++) {
      if (i > 600) throw new Error(`import still ${final.status} at ${final.processed}: ${worker.output}`);
      await sleep(50);
      final = await status(jobId);
    }
    expect(final).toMatchObject({
      status: 'completed',
      total: ROWS,
      processed: ROWS,
      created: ROWS,
      updated: 0,
      failed: 0,
      failureReason: null,
    });

    const [counts] = await dataSource(suite.app).query<{ rows: number; distinct_ids: number }[]>(
      `SELECT count(*)::int AS rows, count(DISTINCT external_id)::int AS distinct_ids FROM patients WHERE tenant_id = $1 AND mode = 'test'`,
      [suite.tenant.id],
    );
    expect(counts).toEqual({ rows: ROWS, distinct_ids: ROWS });
    const [events] = await dataSource(suite.app).query<{ n: number; patients: number }[]>(
      `SELECT count(*)::int AS n, count(DISTINCT payload->>'id')::int AS patients FROM events WHERE tenant_id = $1 AND type = 'patient.created'`,
      [suite.tenant.id],
    );
    expect(events).toEqual({ n: ROWS, patients: ROWS });
  }, 240_000);
});
