import { dataSource } from '../helpers/app';
import type { BulkImportAcceptedDto, BulkImportJobDto } from '../../src/modules/patients/dto/bulk-import.dto';
import { NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';
import { freePort } from '../helpers/ports';
import { BuiltProcess, sleep } from '../helpers/processes';
import { useApp } from '../helpers/use-app';

const IMPORT = `${PATIENTS}/bulk-import`;

/**
 * docs/operations.md, "Shutdown": SIGTERM stops accepting, finishes in-flight
 * requests and jobs, and exits 0 — for the built API and the built worker.
 */
describe('Graceful shutdown of the built processes (SIGTERM)', () => {
  const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off' });
  // The built API's port (the suite's own app listens on none).
  let port: number;
  let base: string;
  beforeAll(async () => {
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
  });
  const children: BuiltProcess[] = [];
  suite.onClose(() => Promise.all(children.map((c) => c.stop('SIGKILL'))));

  const start = (entry: 'main.js' | 'worker.js', env: Record<string, string> = {}): BuiltProcess => {
    const child = BuiltProcess.start(entry, { ...NO_RATE_LIMITS, ...env });
    children.push(child);
    return child;
  };

  const post = (path: string, body: unknown): Promise<{ status: number; body: unknown; at: number }> =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${suite.tenant.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: await res.json(), at: Date.now() }));

  it('dist/main.js answers every request in flight, then exits 0', async () => {
    const api = start('main.js', { HOST: '127.0.0.1', PORT: String(port), WORKERS: 'off' });
    await api.waitUntilLive(base);
    const run = Date.now().toString(36);
    // A create whose connection the closing server resets before reading it was never received: status 0.
    let answered = 0;
    const create = (i: number) =>
      post(PATIENTS, { firstName: 'Term', lastName: `${run}-${i}` })
        .catch(() => ({ status: 0, body: null, at: Date.now() }))
        .finally(() => answered++);
    // Most creates first, answered before the signal: sent together with the dry run below, a busy machine
    // could leave most of them unread behind its validation when the signal came.
    const creates = Array.from({ length: 15 }, (_, i) => create(i));
    const deadline = Date.now() + 20_000;
    while (answered < 15 && Date.now() < deadline) await sleep(10);
    // A dry run of 5,000 rows takes a while to validate: it is surely still running when the signal comes.
    const slow = post(`${IMPORT}?dryRun=true`, {
      patients: Array.from({ length: 5_000 }, (_, i) => ({ firstName: 'Dry', lastName: `Run ${i}`, email: `dry${i}@example.com` })),
    });
    creates.push(...Array.from({ length: 5 }, (_, i) => create(15 + i))); // and a few more in flight with it
    await sleep(150);
    const signalledAt = Date.now();
    api.child.kill('SIGTERM');

    const answers = await Promise.all([slow, ...creates]);
    const exit = await api.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    // Promptly: the clients' keep-alive connections close after their last answer instead of idling out
    // the server's 72 s keep-alive timeout (which held the process that long after SIGTERM).
    expect(Date.now() - Math.max(...answers.map((a) => a.at))).toBeLessThan(30_000);
    const [dryRun, ...created] = answers;
    expect(dryRun.status).toBe(200);
    expect(dryRun.body).toMatchObject({ dryRun: true, total: 5_000, wouldCreate: 5_000, failed: 0 });
    expect(dryRun.at).toBeGreaterThan(signalledAt); // it was in flight when SIGTERM arrived
    // A create the server had not yet received when the signal came is refused whole: 503, or its
    // keep-alive connection reset unread (0); every one it had received completes, and each 201 is a row.
    const statuses = created.map((c) => c.status);
    expect(statuses.every((s) => s === 201 || s === 503 || s === 0)).toBe(true);
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(15);
    const [{ n }] = await dataSource(suite.app).query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM patients WHERE tenant_id = $1 AND last_name LIKE $2`,
      [suite.tenant.id, `${run}-%`],
    );
    expect(n).toBe(statuses.filter((s) => s === 201).length);
    // Stopped accepting: nothing answers on the port any more.
    await expect(fetch(`${base}/health/live`)).rejects.toThrow();
  }, 180_000);

  it('dist/worker.js stops mid-import after its current batch, exits 0, and the import resumes to completion', async () => {
    const rows = 3_000;
    const accepted = await suite.api().post<BulkImportAcceptedDto>(IMPORT, {
      patients: Array.from({ length: rows }, (_, i) => ({ firstName: 'Term', lastName: `Import ${i}`, externalId: `term-${i}` })),
    });
    expect(accepted.status).toBe(202);
    const status = async (): Promise<BulkImportJobDto> =>
      (await suite.api().get<BulkImportJobDto>(`${IMPORT}/${accepted.body.jobId}`)).body;

    const worker = start('worker.js');
    let seen = await status();
    while (seen.processed < 500) {
      if (!worker.running) throw new Error(`worker exited: ${worker.output}`);
      await sleep(20);
      seen = await status();
    }
    expect(seen.status).toBe('running');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toEqual({ code: 0, signal: null });

    // It finished the batch it was in (the cursor moves a whole batch at a time) and stopped there.
    const stopped = await status();
    expect(stopped.processed % 500).toBe(0);
    expect(stopped.processed).toBeGreaterThanOrEqual(seen.processed);
    expect(stopped.failureReason).toBeNull();
    if (stopped.processed < rows) {
      expect(stopped.status).toMatch(/^(running|queued)$/);
      start('worker.js'); // the next worker resumes it at once: the job went back to the queue, no stall wait
    }
    let final = stopped;
    for (let i = 0; final.status !== 'completed' && final.status !== 'failed'; i++) {
      if (i > 1200) throw new Error(`import still ${final.status} at ${final.processed}`);
      await sleep(50);
      final = await status();
    }
    expect(final).toMatchObject({ status: 'completed', processed: rows, created: rows, failed: 0 });
    const [counts] = await dataSource(suite.app).query<{ rows: number; ids: number }[]>(
      `SELECT count(*)::int AS rows, count(DISTINCT external_id)::int AS ids FROM patients WHERE tenant_id = $1 AND external_id LIKE 'term-%'`,
      [suite.tenant.id],
    );
    expect(counts).toEqual({ rows, ids: rows });
  }, 180_000);
});
