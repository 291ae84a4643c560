// Cost of the rate limiter: throughput of one authenticated GET with limits on (huge, so nothing is
// refused) versus off (every RATE_LIMIT_* = 0: the limiter makes no Redis call), against the built API.
//
//   npm run build && node bench/rate-limit.mjs [--path /api/v1/patients/{id}] [--duration 10]
//                                              [--connections 32] [--pairs 3] [--port 3201] [--no-write]
//
// Loopback only: a fresh database on the local PostgreSQL (BENCH_ADMIN_DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/postgres) and a fresh key prefix on the local Redis (REDIS_URL,
// default redis://127.0.0.1:6379), both removed at the end. On and off runs alternate; medians are reported.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Redis from 'ioredis';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    path: { type: 'string', default: '/api/v1/patients/{id}' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    pairs: { type: 'string', default: '3' },
    port: { type: 'string', default: '3201' },
    'no-write': { type: 'boolean', default: false },
  },
});
const duration = Math.min(Number(opts.duration), 60);
const connections = Math.min(Number(opts.connections), 256);
const pairs = Math.min(Number(opts.pairs), 10);
const port = Number(opts.port);
const adminUrl = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const run = `${Date.now().toString(36)}${process.pid.toString(36)}`;
const database = `pm_bench_${run}`;
const prefix = `pmbench:${run}`;
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();

const LIMITS = {
  on: {
    RATE_LIMIT_LIVE_PER_SECOND: '1000000',
    RATE_LIMIT_LIVE_PER_HOUR: '100000000',
    RATE_LIMIT_LIVE_PER_DAY: '0',
  },
  off: Object.fromEntries(
    ['TEST', 'LIVE', 'IP'].flatMap((m) => ['SECOND', 'HOUR', 'DAY'].map((w) => [`RATE_LIMIT_${m}_PER_${w}`, '0'])),
  ),
};
const baseEnv = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn' };

const log = (line) => process.stderr.write(`${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function admin(sql) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function startApi(limits) {
  const child = spawn(process.execPath, [join(root, 'dist/main.js')], {
    env: { ...baseEnv, ...limits, PORT: String(port), HOST: '127.0.0.1', WORKERS: 'off', MIGRATIONS_RUN: 'false' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let i = 0; i < 150; i++) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok) return child;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error('the API did not become ready');
}

async function stopApi(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

async function measure(mode, key) {
  const api = await startApi(LIMITS[mode]);
  try {
    const url = `http://127.0.0.1:${port}${opts.path}`;
    const headers = { authorization: `Bearer ${key}` };
    const probe = await fetch(url, { headers });
    if (!probe.ok) throw new Error(`${opts.path} answered ${probe.status}`);
    const limited = probe.headers.has('ratelimit-policy');
    if (limited !== (mode === 'on')) throw new Error(`limits ${mode} but RateLimit-Policy is ${limited ? 'present' : 'absent'}`);
    await autocannon({ url, headers, connections, duration: 2 }); // warm-up (JIT, pools, key cache)
    const result = await autocannon({ url, headers, connections, duration });
    const refused = result.non2xx;
    if (refused > 0) throw new Error(`${refused} responses were not 2xx (limits ${mode})`);
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, total: result.requests.total };
  } finally {
    await stopApi(api);
  }
}

/** The patient that `{id}` in --path stands for, created through the API in the bench tenant's live mode. */
async function createPatient(key) {
  const api = await startApi(LIMITS.off);
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/patients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ firstName: 'Bench', lastName: 'Patient', email: 'bench@example.com', tags: ['bench'] }),
    });
    if (res.status !== 201) throw new Error(`creating the bench patient answered ${res.status}`);
    return (await res.json()).id;
  } finally {
    await stopApi(api);
  }
}

async function cleanup() {
  await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((e) => log(`could not drop ${database}: ${e.message}`));
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
}

function writeReadme(section) {
  const file = join(root, 'bench/README.md');
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const heading = '## Rate limiter';
  const start = current.indexOf(`\n${heading}\n`);
  let next;
  if (start === -1) next = `${current.trimEnd()}\n\n${section}`;
  else {
    const after = current.indexOf('\n## ', start + heading.length + 1);
    next = `${current.slice(0, start + 1)}${section}${after === -1 ? '' : `\n${current.slice(after + 1)}`}`;
  }
  writeFileSync(file, `${next.trimEnd()}\n`);
}

async function main() {
  if (!existsSync(join(root, 'dist/main.js'))) throw new Error('dist/main.js is missing: run npm run build first');
  await admin(`CREATE DATABASE ${database}`);
  try {
    execFileSync(process.execPath, [join(root, 'dist/cli.js'), 'migrations:run'], { env: baseEnv, stdio: ['ignore', 'ignore', 'inherit'] });
    const created = JSON.parse(
      execFileSync(process.execPath, [join(root, 'dist/cli.js'), 'tenants:create', '--name', 'Bench'], {
        env: baseEnv,
        stdio: ['ignore', 'pipe', 'inherit'],
      }).toString(),
    );
    const key = created.apiKeys.find((k) => k.mode === 'live').key;
    if (opts.path.includes('{id}')) opts.path = opts.path.replace('{id}', await createPatient(key));
    const runs = { on: [], off: [] };
    for (let i = 0; i < pairs; i++) {
      // Alternate which mode goes first, so that a drift of the machine weighs on both.
      for (const mode of i % 2 ? ['off', 'on'] : ['on', 'off']) {
        const r = await measure(mode, key);
        runs[mode].push(r);
        log(`pair ${i + 1}/${pairs} limits ${mode.padEnd(3)}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms`);
      }
    }
    const on = median(runs.on.map((r) => r.rps));
    const off = median(runs.off.map((r) => r.rps));
    const cost = ((off - on) / off) * 100;
    const row = (mode) =>
      `| ${mode} | ${runs[mode].map((r) => r.rps.toFixed(0)).join(', ')} | ${median(runs[mode].map((r) => r.rps)).toFixed(0)} | ${median(runs[mode].map((r) => r.p50))} | ${median(runs[mode].map((r) => r.p99))} |`;
    const section = [
      '## Rate limiter',
      '',
      `\`node bench/rate-limit.mjs\` (${new Date().toISOString().slice(0, 10)}): \`GET ${opts.path}\` with a live key, ${connections} connections, ` +
        `${duration} s per run after a 2 s warm-up, ${pairs} alternating on/off pairs, one API process (\`WORKERS=off\`, \`LOG_LEVEL=warn\`) ` +
        `on ${cpus().length} CPUs, local PostgreSQL and Redis over loopback.`,
      '',
      '- **on**: `RATE_LIMIT_LIVE_PER_SECOND=1000000`, `RATE_LIMIT_LIVE_PER_HOUR=100000000` (two windows, nothing refused): one Lua script, one Redis round trip per request.',
      '- **off**: every `RATE_LIMIT_*` = 0: the limiter makes no Redis call and sends no rate-limit headers.',
      '',
      '| limits | req/s per run | median req/s | median p50 (ms) | median p99 (ms) |',
      '|---|---|---|---|---|',
      row('on'),
      row('off'),
      '',
      `**Cost of the limiter: ${cost.toFixed(1)}% of throughput** (target: under 15%; a negative figure means the difference is within run-to-run noise).`,
      '',
      'The VM shows CPU steal at times: compare the ratio within one run, not absolute numbers across runs. `--path` measures another ' +
        'endpoint (`{id}` stands for a patient the script creates), e.g. `--path /api/v1/settings/practice`.',
      '',
    ].join('\n');
    process.stdout.write(`${section}\n`);
    if (!opts['no-write']) writeReadme(section);
  } finally {
    await cleanup();
  }
}

main().catch((err) => {
  log(`bench failed: ${err.message}`);
  process.exitCode = 1;
});
