import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createTenant, dataSource, startApp, TestTenant } from '../helpers/app';

/**
 * Issue 8: 40 concurrent POST /patients, each with its own Idempotency-Key, the built API killed with
 * SIGKILL mid-burst and restarted, the unanswered requests retried: each request must have created
 * exactly one patient, and every retry must answer 201 (replayed or fresh). Runs `node dist/main.js`:
 * `npm run build` first (CI builds before it tests).
 */
const MAIN = join(__dirname, '..', '..', 'dist', 'main.js');
const PORT = 4100 + (process.pid % 100);
const BASE = `http://127.0.0.1:${PORT}`;
const REQUESTS = 40;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function startServer(): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env, // the run's DATABASE_URL, REDIS_URL, REDIS_PREFIX, MIGRATIONS_RUN=false, generous rate limits
      HOST: '127.0.0.1',
      PORT: String(PORT),
      WORKERS: 'off',
      LOG_LEVEL: 'warn',
      // The lock of a request that died with its process is taken over after this long.
      IDEMPOTENCY_LOCK_SECONDS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer): void => void (output = (output + chunk.toString()).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return { child, output: () => output };
}

async function waitUntilLive(server: { child: ChildProcess; output: () => string }): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null) throw new Error(`dist/main.js exited with ${server.child.exitCode}: ${server.output()}`);
    const live = await fetch(`${BASE}/health/live`).catch(() => undefined);
    if (live?.ok) return;
    await sleep(100);
  }
  throw new Error(`dist/main.js did not answer within 30 s: ${server.output()}`);
}

function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

interface Sent {
  key: string;
  body: { firstName: string; lastName: string; email: string };
}

function send(tenant: TestTenant, request: Sent): Promise<Response> {
  return fetch(`${BASE}/api/v1/patients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tenant.testKey}`, 'content-type': 'application/json', 'idempotency-key': request.key },
    body: JSON.stringify(request.body),
  });
}

describe('Idempotency-Key survives a crash between the commit and the stored answer (issue 8)', () => {
  let app: NestFastifyApplication;
  let tenant: TestTenant;
  let server: ReturnType<typeof startServer> | undefined;

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: run `npm run build` before `npm test`');
    app = await startApp({ WORKERS: 'off' });
    tenant = await createTenant(app);
  });
  afterAll(async () => {
    if (server) await stop(server.child, 'SIGKILL');
    await app.close();
  });

  it('creates exactly one patient per request, and every retry answers 201', async () => {
    const run = Date.now().toString(36);
    const requests: Sent[] = Array.from({ length: REQUESTS }, (_, i) => ({
      key: `crash-${run}-${i}`,
      body: { firstName: 'Crash', lastName: `Burst ${i}`, email: `crash-${run}-${i}@example.test` },
    }));

    server = startServer();
    await waitUntilLive(server);
    const first = server;
    // The whole burst in flight at once; the process dies as soon as the first answers come back, so
    // that others are somewhere between their claim, their COMMIT and their stored answer.
    let answered = 0;
    const killed = new Promise<void>((resolve) => {
      const outcomes = requests.map((r) =>
        send(tenant, r).then(
          async (res) => {
            const body = await res.text().catch(() => undefined);
            if (++answered === 3) void stop(first.child, 'SIGKILL').then(resolve);
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
    await stop(first.child, 'SIGKILL');
    while (!outcomesOfBurst) await sleep(20);
    const unanswered = requests.filter((_, i) => outcomesOfBurst![i] === undefined);
    expect(unanswered.length).toBeGreaterThan(0); // the kill did land mid-burst
    for (const [i, outcome] of outcomesOfBurst.entries()) {
      if (outcome) expect({ i, status: outcome.status }).toEqual({ i, status: 201 });
    }

    server = startServer();
    await waitUntilLive(server);
    const retries = await Promise.all(
      unanswered.map(async (r) => {
        // 409 while a dead request's lock has not expired yet: the client is told to retry later.
        for (let attempt = 1; ; attempt++) {
          const res = await send(tenant, r);
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

    const rows: { email: string; n: number }[] = await dataSource(app).query(
      `SELECT email, count(*)::int AS n FROM patients WHERE tenant_id = $1 AND email LIKE $2 GROUP BY email`,
      [tenant.id, `crash-${run}-%`],
    );
    const created = new Map(rows.map((r) => [r.email, r.n]));
    const duplicated = requests.filter((r) => (created.get(r.body.email) ?? 0) > 1).map((r) => r.key);
    const missing = requests.filter((r) => !created.has(r.body.email)).map((r) => r.key);
    expect({ duplicated, missing }).toEqual({ duplicated: [], missing: [] });
    // Each retry answered the patient that exists, whether it replayed a committed create or ran afresh.
    const ids: { email: string; id: string }[] = await dataSource(app).query(
      `SELECT email, id FROM patients WHERE tenant_id = $1 AND email LIKE $2`,
      [tenant.id, `crash-${run}-%`],
    );
    const idOf = new Map(ids.map((r) => [r.email, r.id]));
    for (const retry of retries) expect(retry.body.id).toBe(idOf.get(retry.request.body.email));
  }, 120_000);
});
