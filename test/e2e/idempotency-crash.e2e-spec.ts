import { dataSource, TestTenant } from '../helpers/app';
import { freePort } from '../helpers/ports';
import { BuiltProcess, sleep } from '../helpers/processes';
import { useApp } from '../helpers/use-app';

/**
 * 40 concurrent POST /patients, each with its own Idempotency-Key, the built API killed with
 * SIGKILL mid-burst and restarted, the unanswered requests retried: each request must have created
 * exactly one patient, and every retry must answer 201 (replayed or fresh). Runs `node dist/main.js`:
 * the run's set-up builds `dist/` when it is missing or stale.
 */
const REQUESTS = 40;
/** The built API's port, the same for its restart. */
let port: number;
let base: string;

/** The built API; the lock of a request that died with its process is taken over after 1 s. */
const startServer = (): BuiltProcess =>
  BuiltProcess.start('main.js', { HOST: '127.0.0.1', PORT: String(port), WORKERS: 'off', IDEMPOTENCY_LOCK_SECONDS: '1' });

interface Sent {
  key: string;
  body: { firstName: string; lastName: string; email: string };
}

function send(tenant: TestTenant, request: Sent): Promise<Response> {
  return fetch(`${base}/api/v1/patients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.testKey}`, 'content-type': 'application/json', 'idempotency-key': request.key },
    body: JSON.stringify(request.body),
  });
}

describe('Idempotency-Key survives a crash between the commit and the stored answer', () => {
  const suite = useApp({ WORKERS: 'off' });
  let server: BuiltProcess | undefined;
  suite.onClose(() => server?.stop('SIGKILL'));
  beforeAll(async () => {
    port = await freePort();
    base = `http://127.0.0.1:${port}`;
  });

  it('creates exactly one patient per request, and every retry answers 201', async () => {
    const run = Date.now().toString(36);
    const requests: Sent[] = Array.from({ length: REQUESTS }, (_, i) => ({
      key: `crash-${run}-${i}`,
      body: { firstName: 'Crash', lastName: `Burst ${i}`, email: `crash-${run}-${i}@example.test` },
    }));

    server = startServer();
    await server.waitUntilLive(base);
    const first = server;
    // The whole burst in flight at once; the process dies as soon as the first answers come back, so
    // that others are somewhere between their claim, their COMMIT and their stored answer.
    let answered = 0;
    const killed = new Promise<void>((resolve) => {
      const outcomes = requests.map((r) =>
        send(suite.tenant, r).then(
          async (res) => {
            const body = await res.text().catch(() => undefined);
            if (++answered === 3) void first.stop('SIGKILL').then(() => resolve());
            return body === undefined ? undefined : { status: res.status, body };
          },
          () => undefined,
        ),
      );
      void Promise.all(outcomes).then((all) => {
        outcomesOfBurst = all;
        resolve();
      });
    });
    let outcomesOfBurst: ({ status: number; body: string } | undefined)[] | undefined;
    await killed;
    await first.stop('SIGKILL');
    while (!outcomesOfBurst) await sleep(20);
    const unanswered = requests.filter((_, i) => outcomesOfBurst![i] === undefined);
    expect(unanswered.length).toBeGreaterThan(0); // the kill did land mid-burst
    for (const [i, outcome] of outcomesOfBurst.entries()) {
      if (outcome) expect({ i, status: outcome.status }).toEqual({ i, status: 201 });
    }

    server = startServer();
    await server.waitUntilLive(base);
    const retries = await Promise.all(
      unanswered.map(async (r) => {
        // 409 while a dead request's lock has not expired yet: the client is told to retry later.
        for (let attempt = 1; ; attempt++) {
          const res = await send(suite.tenant, r);
          const body = (await res.json()) as { id?: string; code?: string };
          if (res.status !== 409 || attempt >= 20) {
            return {
              request: r,
              status: res.status,
              body,
              location: res.headers.get('location'),
              replayed: res.headers.get('idempotent-replayed'),
            };
          }
          await sleep(250);
        }
      }),
    );
    for (const retry of retries) {
      expect({ key: retry.request.key, status: retry.status }).toEqual({ key: retry.request.key, status: 201 });
      expect(retry.location).toBe(`/api/v1/patients/${retry.body.id}`);
    }

    const rows: { email: string; n: number }[] = await dataSource(suite.app).query(
      `SELECT email, count(*)::int AS n FROM patients WHERE tenant_id = $1 AND email LIKE $2 GROUP BY email`,
      [suite.tenant.id, `crash-${run}-%`],
    );
    const created = new Map(rows.map((r) => [r.email, r.n]));
    const duplicated = requests.filter((r) => (created.get(r.body.email) ?? 0) > 1).map((r) => r.key);
    const missing = requests.filter((r) => !created.has(r.body.email)).map((r) => r.key);
    expect({ duplicated, missing }).toEqual({ duplicated: [], missing: [] });
    // Each retry answered the patient that exists, whether it replayed a committed create or ran afresh.
    const ids: { email: string; id: string }[] = await dataSource(suite.app).query(
      `SELECT email, id FROM patients WHERE tenant_id = $1 AND email LIKE $2`,
      [suite.tenant.id, `crash-${run}-%`],
    );
    const idOf = new Map(ids.map((r) => [r.email, r.id]));
    for (const retry of retries) expect(retry.body.id).toBe(idOf.get(retry.request.body.email));
  }, 240_000);
});
