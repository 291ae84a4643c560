// Audit-log cost on GET /patients/{id}: the built API with the audit log on, then off
// (AUDIT_LOG_ENABLED=false, a switch for this comparison only), alternating rounds, autocannon with 32
// connections. Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379.
// Creates and drops its own database. Usage: node bench/audit.mjs [seconds=10] [rounds=3]
import { execFileSync, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';

const SECONDS = Number(process.argv[2] ?? 10);
const ROUNDS = Number(process.argv[3] ?? 3);
const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const run = Date.now().toString(36);
const database = `pm_bench_audit_${run}`;
const url = new URL(ADMIN_URL);
url.pathname = `/${database}`;
const PORT = 3111;
const env = {
  ...process.env,
  DATABASE_URL: url.toString(),
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  REDIS_PREFIX: `pmbench:${run}`,
  HOST: '127.0.0.1',
  PORT: String(PORT),
  LOG_LEVEL: 'warn',
  WORKERS: 'off',
  MIGRATIONS_RUN: 'false',
  ...Object.fromEntries(['TEST', 'LIVE', 'IP'].flatMap((m) => ['SECOND', 'HOUR', 'DAY'].map((w) => [`RATE_LIMIT_${m}_PER_${w}`, '0']))),
};
const log = (line) => process.stderr.write(`${line}\n`);

async function waitFor(target, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(target)).status < 500) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${target} did not come up`);
    await sleep(100);
  }
}

/** Starts the API with the audit log on or off, measures GET /patients/{id}, stops it. */
async function measure(audit, headers, patientId) {
  const child = spawn(process.execPath, ['dist/main.js'], {
    env: { ...env, AUDIT_LOG_ENABLED: String(audit) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitFor(`http://127.0.0.1:${PORT}/health/ready`);
    const target = { url: `http://127.0.0.1:${PORT}/api/v1/patients/${patientId}`, headers, connections: 32 };
    await new Promise((resolve, reject) => autocannon({ ...target, duration: 2 }, (err) => (err ? reject(err) : resolve())));
    const result = await new Promise((resolve, reject) =>
      autocannon({ ...target, duration: SECONDS }, (err, res) => (err ? reject(err) : resolve(res))),
    );
    return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  try {
    execFileSync(process.execPath, ['dist/cli.js', 'migrations:run'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const created = JSON.parse(
      execFileSync(process.execPath, ['dist/cli.js', 'tenants:create', '--name', 'Bench Clinic'], { env }).toString(),
    );
    const key = created.apiKeys.find((k) => k.mode === 'live').key;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

    const api = spawn(process.execPath, ['dist/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    await waitFor(`http://127.0.0.1:${PORT}/health/ready`);
    const res = await fetch(`http://127.0.0.1:${PORT}/api/v1/patients`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }),
    });
    const patientId = (await res.json()).id;
    api.kill('SIGTERM');
    await new Promise((resolve) => api.once('exit', resolve));

    const on = [];
    const off = [];
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternate the order, so that a machine getting busier does not favour one side.
      const order = round % 2 ? [true, false] : [false, true];
      for (const audit of order) (audit ? on : off).push(await measure(audit, headers, patientId));
      log(`round ${round}: on ${on.at(-1).rps.toFixed(0)} req/s, off ${off.at(-1).rps.toFixed(0)} req/s`);
    }
    const onRps = median(on.map((r) => r.rps));
    const offRps = median(off.map((r) => r.rps));
    console.log(
      `| GET /patients/{id} | audit on ${onRps.toFixed(0)} req/s (p99 ${median(on.map((r) => r.p99))} ms) | audit off ${offRps.toFixed(0)} req/s (p99 ${median(off.map((r) => r.p99))} ms) | cost ${((1 - onRps / offRps) * 100).toFixed(1)} % | errors ${[...on, ...off].reduce((a, r) => a + r.errors, 0)} |`,
    );
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((err) => {
  log(err.stack ?? String(err));
  process.exit(1);
});
