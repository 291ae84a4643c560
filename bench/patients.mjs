// Patients benchmark: a 10,000-row bulk import end to end, then GET /patients/{id}, POST /patients and
// GET /patients?limit=50 with autocannon (32 connections), each beside bench/bare-server.mjs doing the
// same key lookup and query. Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on
// 127.0.0.1:6379. Creates and drops its own database. Usage: node bench/patients.mjs [seconds=10] [rounds=1]
import { spawn, execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';

const SECONDS = Number(process.argv[2] ?? 10);
const ROUNDS = Number(process.argv[3] ?? 1);
const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const run = Date.now().toString(36);
const database = `pm_bench_${run}`;
const url = new URL(ADMIN_URL);
url.pathname = `/${database}`;
const API_PORT = 3101;
const BARE_PORT = 3102;
const env = {
  ...process.env,
  DATABASE_URL: url.toString(),
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  REDIS_PREFIX: `pmbench:${run}`,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  RATE_LIMIT_TEST_PER_SECOND: '0',
  RATE_LIMIT_TEST_PER_HOUR: '0',
  RATE_LIMIT_TEST_PER_DAY: '0',
  RATE_LIMIT_LIVE_PER_SECOND: '0',
  RATE_LIMIT_LIVE_PER_HOUR: '0',
  RATE_LIMIT_LIVE_PER_DAY: '0',
  RATE_LIMIT_IP_PER_SECOND: '0',
  RATE_LIMIT_IP_PER_HOUR: '0',
};
const children = [];
const log = (line) => process.stderr.write(`${line}\n`);

function start(script, port) {
  const child = spawn(process.execPath, [script], { env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}

async function waitFor(urlToPoll, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(urlToPoll);
      if (res.status < 500) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`${urlToPoll} did not come up`);
    await sleep(100);
  }
}

function cannon(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: 32, duration: SECONDS, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
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

    start('dist/main.js', API_PORT);
    start('bench/bare-server.mjs', BARE_PORT);
    await waitFor(`http://127.0.0.1:${API_PORT}/health/ready`);
    await waitFor(`http://127.0.0.1:${BARE_PORT}/api/v1/patients`);

    // 1. Bulk import, end to end: POST, then poll until completed.
    const rows = Array.from({ length: 10_000 }, (_, i) => ({
      externalId: `bench-${i}`,
      firstName: `First${i}`,
      lastName: `Last${i}`,
      email: `patient${i}@example.com`,
      phone: `+1415555${String(i).padStart(4, '0')}`,
      dateOfBirth: '1980-05-17',
      tags: [`cohort-${i % 20}`],
    }));
    const t0 = performance.now();
    const accepted = await fetch(`http://127.0.0.1:${API_PORT}/api/v1/patients/bulk-import`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ patients: rows }),
    }).then((r) => r.json());
    let job;
    do {
      await sleep(25);
      job = await fetch(`http://127.0.0.1:${API_PORT}/api/v1/patients/bulk-import/${accepted.jobId}`, { headers }).then((r) => r.json());
    } while (job.status === 'queued' || job.status === 'running');
    const importMs = performance.now() - t0;
    log(`import: ${job.status}, ${job.created} created, ${job.failed} failed in ${importMs.toFixed(0)} ms`);

    // Steady state before measuring: on a table that grew from nothing in seconds, autovacuum has not yet
    // caught up (statistics, GIN pending lists) and would compete for the two cores mid-run.
    const bench = new pg.Client({ connectionString: url.toString() });
    await bench.connect();
    await bench.query('VACUUM (ANALYZE) patients');
    await bench.end();

    const list = await fetch(`http://127.0.0.1:${API_PORT}/api/v1/patients?limit=1`, { headers }).then((r) => r.json());
    const id = list.patients[0].id;
    const createBody = JSON.stringify({
      firstName: 'Bench',
      lastName: 'Create',
      email: 'bench@example.com',
      phone: '+14155550100',
      tags: ['bench'],
    });

    const cases = [
      { name: 'GET /patients/{id}', path: `/api/v1/patients/${id}`, method: 'GET', target: 0.6 },
      { name: 'POST /patients', path: '/api/v1/patients', method: 'POST', body: createBody, target: 0.5 },
      { name: 'GET /patients?limit=50', path: '/api/v1/patients?limit=50', method: 'GET' },
    ];
    const results = [];
    for (const c of cases) {
      const api = [];
      const bare = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const [port, into] of [
          [API_PORT, api],
          [BARE_PORT, bare],
        ]) {
          const opts = { url: `http://127.0.0.1:${port}${c.path}`, method: c.method, headers, body: c.body };
          await cannon({ ...opts, duration: 2 }); // warm-up
          const r = await cannon(opts);
          const errors = r.errors + r.non2xx;
          into.push({ rps: r.requests.average, p99: r.latency.p99, errors });
          log(
            `${c.name} ${port === API_PORT ? 'api ' : 'bare'}: ${r.requests.average.toFixed(0)} req/s, p99 ${r.latency.p99} ms, errors ${errors}`,
          );
        }
      }
      const apiRps = median(api.map((x) => x.rps));
      const bareRps = median(bare.map((x) => x.rps));
      results.push({
        name: c.name,
        apiRps,
        bareRps,
        ratio: apiRps / bareRps,
        target: c.target,
        apiP99: median(api.map((x) => x.p99)),
        bareP99: median(bare.map((x) => x.p99)),
        errors: api.reduce((n, x) => n + x.errors, 0) + bare.reduce((n, x) => n + x.errors, 0),
      });
    }

    const lines = [
      `10,000-row bulk import, end to end (POST → completed): ${(importMs / 1000).toFixed(2)} s (target < 5 s) — ${job.created} created, ${job.failed} failed`,
      '',
      `autocannon, 32 connections, ${SECONDS} s per run, ${ROUNDS} round(s) (medians):`,
      '',
      '| Endpoint | API req/s | bare req/s | ratio | target | API p99 ms | bare p99 ms | errors |',
      '|---|---:|---:|---:|---:|---:|---:|---:|',
      ...results.map(
        (r) =>
          `| ${r.name} | ${r.apiRps.toFixed(0)} | ${r.bareRps.toFixed(0)} | ${r.ratio.toFixed(2)} | ${r.target ? `≥ ${r.target}` : '—'} | ${r.apiP99} | ${r.bareP99} | ${r.errors} |`,
      ),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(1500);
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    try {
      const keys = execFileSync('redis-cli', ['--scan', '--pattern', `pmbench:${run}:*`])
        .toString()
        .split('\n')
        .filter(Boolean);
      for (let i = 0; i < keys.length; i += 500) execFileSync('redis-cli', ['del', ...keys.slice(i, i + 500)]);
    } catch {
      log('could not clean the Redis keys (redis-cli missing?)');
    }
  }
}

main().catch((err) => {
  for (const child of children) child.kill('SIGTERM');
  log(err.stack ?? String(err));
  process.exit(1);
});
