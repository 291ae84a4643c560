// Webhook throughput: 1,000 deliveries to a local receiver. Starts the built API (API, relay and delivery
// workers in one process) with WEBHOOK_ALLOW_PRIVATE_URLS=true, registers an endpoint on a loopback
// receiver, bulk-imports 1,000 patients (1,000 patient.created events) and times from the import's
// completion to the 1,000th delivery received, checking each signature and that no event came twice.
// Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379. Creates and drops
// its own database. Usage: node bench/webhooks.mjs [deliveries=1000]
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';

const COUNT = Number(process.argv[2] ?? 1000);
const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const run = Date.now().toString(36);
const database = `pm_bench_webhooks_${run}`;
const url = new URL(ADMIN_URL);
url.pathname = `/${database}`;
const PORT = 41312; // the platform range of the shared machine (41300-41399)
const RECEIVER_PORT = 41313;
const env = {
  ...process.env,
  DATABASE_URL: url.toString(),
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  REDIS_PREFIX: `pmbench:${run}`,
  HOST: '127.0.0.1',
  PORT: String(PORT),
  LOG_LEVEL: 'warn',
  MIGRATIONS_RUN: 'false',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  ...Object.fromEntries(['TEST', 'LIVE', 'IP'].flatMap((m) => ['SECOND', 'HOUR', 'DAY'].map((w) => [`RATE_LIMIT_${m}_PER_${w}`, '0']))),
};
const log = (line) => process.stderr.write(`${line}\n`);

async function waitFor(check, what, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await sleep(20);
  }
}

async function main() {
  const received = [];
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ at: performance.now(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise((resolve) => receiver.listen(RECEIVER_PORT, '127.0.0.1', resolve));
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  let api;
  try {
    execFileSync(process.execPath, ['dist/cli.js', 'migrations:run'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const created = JSON.parse(
      execFileSync(process.execPath, ['dist/cli.js', 'tenants:create', '--name', 'Bench Clinic'], { env }).toString(),
    );
    const key = created.apiKeys.find((k) => k.mode === 'live').key;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const base = `http://127.0.0.1:${PORT}/api/v1`;
    api = spawn(process.execPath, ['dist/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    await waitFor(async () => (await fetch(`http://127.0.0.1:${PORT}/health/ready`)).ok, 'API start');

    const hook = await (
      await fetch(`${base}/webhooks`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: `http://127.0.0.1:${RECEIVER_PORT}/hook`, events: ['patient.created'] }),
      })
    ).json();
    const rows = Array.from({ length: COUNT }, (_, i) => ({ firstName: `Bench${i}`, lastName: 'Patient', externalId: `bench-${i}` }));
    const started = performance.now();
    const job = await (
      await fetch(`${base}/patients/bulk-import`, { method: 'POST', headers, body: JSON.stringify({ patients: rows }) })
    ).json();
    await waitFor(
      async () => (await (await fetch(`${base}/patients/bulk-import/${job.jobId}`, { headers })).json()).status === 'completed',
      'import',
    );
    const imported = performance.now();
    await waitFor(async () => received.length >= COUNT, `${COUNT} deliveries`);
    const done = performance.now();
    await sleep(1000); // a duplicate would arrive meanwhile

    const verifier = new Webhook(hook.secret);
    const ids = new Set(received.map((r) => r.headers['webhook-id']));
    const bad = received.filter((r) => {
      try {
        verifier.verify(r.body, r.headers);
        return false;
      } catch {
        return true;
      }
    }).length;
    console.log(
      `| ${COUNT} deliveries | import ${((imported - started) / 1000).toFixed(2)} s | import done → last delivery ${((done - imported) / 1000).toFixed(2)} s | POST → last delivery ${((done - started) / 1000).toFixed(2)} s | received ${received.length}, distinct ${ids.size}, bad signatures ${bad} |`,
    );
  } finally {
    api?.kill('SIGTERM');
    if (api) await new Promise((resolve) => api.once('exit', resolve));
    receiver.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((err) => {
  log(err.stack ?? String(err));
  process.exit(1);
});
