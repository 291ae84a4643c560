// Cost of the rate limiter: throughput of one authenticated GET with limits on (huge, so nothing is
// refused) versus off (every RATE_LIMIT_* = 0: the limiter makes no Redis call), against the built API.
//
//   npm run build && node bench/rate-limit.mjs [--layout pinned|shared] [--path /api/v1/patients/{id}]
//       [--duration 10] [--connections 32] [--pairs 5] [--port 3201] [--no-write]
//
// Layouts (see bench/README.md):
//   pinned (default when `taskset` and `redis-server` are on PATH and there are 2+ CPUs): the API process
//     alone on CPU 0; this script (autocannon) and a private redis-server it starts on the other CPUs, as in a
//     deployment where Redis does not run on the API's cores. PostgreSQL is the machine's and not pinned.
//   shared: nothing pinned; the local Redis (REDIS_URL, default redis://127.0.0.1:6379) competes with the
//     API, PostgreSQL and autocannon for the same cores.
//
// Loopback only: a fresh database on the local PostgreSQL (BENCH_ADMIN_DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/postgres) and a fresh key prefix in Redis, both removed at the end. On
// and off runs alternate; medians are reported, with the CPU time each process spent per request.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Redis from 'ioredis';
import pg from 'pg';
import { onPath, OTHER_CPUS, postgresPids, useLayout } from './lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: opts } = parseArgs({
  options: {
    path: { type: 'string', default: '/api/v1/patients/{id}' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    pairs: { type: 'string', default: '5' },
    port: { type: 'string', default: '3201' },
    layout: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
  },
});
const duration = Math.min(Number(opts.duration), 60);
const connections = Math.min(Number(opts.connections), 256);
const pairs = Math.min(Number(opts.pairs), 10);
const port = Number(opts.port);
const adminUrl = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const run = `${Date.now().toString(36)}${process.pid.toString(36)}`;
const database = `pm_bench_${run}`;
const prefix = `pmbench:${run}`;
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();

const cpuCount = cpus().length;
const layout = opts.layout ?? (cpuCount >= 2 && onPath('taskset') && onPath('redis-server') ? 'pinned' : 'shared');
if (!['pinned', 'shared'].includes(layout)) throw new Error('--layout is pinned or shared');
/** The command that runs `argv` on the given CPUs in the pinned layout, unchanged in the shared one. */
const pinned = (cpuList, argv) => (layout === 'pinned' ? ['taskset', ['-c', cpuList, ...argv]] : [argv[0], argv.slice(1)]);

const LIMITS = {
  on: {
    RATE_LIMIT_LIVE_PER_SECOND: '1000000',
    RATE_LIMIT_LIVE_PER_HOUR: '100000000',
    RATE_LIMIT_LIVE_PER_DAY: '0',
  },
  off: Object.fromEntries(['TEST', 'LIVE', 'IP'].flatMap((m) => ['SECOND', 'HOUR', 'DAY'].map((w) => [`RATE_LIMIT_${m}_PER_${w}`, '0']))),
};
let redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const baseEnv = () => ({ ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, LOG_LEVEL: 'warn' });

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

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port: free } = server.address();
      server.close(() => resolve(free));
    });
  });
}

/** The pinned layout's own Redis, on the CPUs the API does not use; stopped at the end. */
async function startPrivateRedis() {
  const redisPort = await freePort();
  const [command, args] = pinned(OTHER_CPUS, [
    'redis-server',
    '--port',
    String(redisPort),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
  const child = spawn(command, args, { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${redisPort}`;
  for (let i = 0; i < 50; i++) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      return { url, child };
    } catch {
      await sleep(100);
    } finally {
      client.disconnect();
    }
  }
  child.kill('SIGKILL');
  throw new Error('the private redis-server did not start');
}

const TICK_MS = 10; // /proc times are in clock ticks of USER_HZ = 100 on Linux

/** CPU ms (user + system) a process has used, from /proc/<pid>/stat; 0 once it is gone. */
function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** CPU ms used so far by the API process, Redis, every PostgreSQL process and this script (autocannon). */
async function cpuSnapshot(apiPid, redis) {
  const info = await redis.info('cpu');
  const redisSeconds = ['used_cpu_sys', 'used_cpu_user'].reduce((sum, f) => sum + Number(new RegExp(`${f}:([\\d.]+)`).exec(info)[1]), 0);
  const postgres = postgresPids().reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const self = process.cpuUsage();
  return { api: processCpuMs(apiPid), redis: redisSeconds * 1000, postgres, autocannon: (self.user + self.system) / 1000 };
}

async function startApi(limits) {
  const [command, args] = pinned('0', [process.execPath, join(root, 'dist/main.js')]);
  const child = spawn(command, args, {
    env: { ...baseEnv(), ...limits, PORT: String(port), HOST: '127.0.0.1', WORKERS: 'off', MIGRATIONS_RUN: 'false' },
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
  const redis = new Redis(redisUrl);
  try {
    const url = `http://127.0.0.1:${port}${opts.path}`;
    const headers = { authorization: `Bearer ${key}` };
    const probe = await fetch(url, { headers });
    if (!probe.ok) throw new Error(`${opts.path} answered ${probe.status}`);
    const limited = probe.headers.has('ratelimit-policy');
    if (limited !== (mode === 'on')) throw new Error(`limits ${mode} but RateLimit-Policy is ${limited ? 'present' : 'absent'}`);
    await autocannon({ url, headers, connections, duration: 2 }); // warm-up (JIT, pools, key cache)
    const before = await cpuSnapshot(api.pid, redis);
    const result = await autocannon({ url, headers, connections, duration });
    const after = await cpuSnapshot(api.pid, redis);
    const refused = result.non2xx;
    if (refused > 0) throw new Error(`${refused} responses were not 2xx (limits ${mode})`);
    // CPU µs per request of each process: where the limiter's cost lands, whatever the throughput did.
    const cpu = Object.fromEntries(Object.keys(before).map((k) => [k, ((after[k] - before[k]) * 1000) / result.requests.total]));
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpu };
  } finally {
    redis.disconnect();
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

async function cleanup(privateRedis) {
  await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((e) => log(`could not drop ${database}: ${e.message}`));
  if (privateRedis) {
    privateRedis.child.kill('SIGTERM');
    return;
  }
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  redis.disconnect();
}

/** Replaces this layout's results in bench/README.md (between its markers), or appends them. */
function writeReadme(section) {
  const file = join(root, 'bench/README.md');
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const [open, close] = [`<!-- rate-limit:${layout} -->`, `<!-- /rate-limit:${layout} -->`];
  const block = `${open}\n${section.trim()}\n${close}`;
  const start = current.indexOf(open);
  const end = current.indexOf(close);
  const next =
    start === -1 || end === -1
      ? `${current.trimEnd()}\n\n${block}\n`
      : `${current.slice(0, start)}${block}${current.slice(end + close.length)}`;
  writeFileSync(file, `${next.trimEnd()}\n`);
}

async function main() {
  if (!existsSync(join(root, 'dist/main.js'))) throw new Error('dist/main.js is missing: run npm run build first');
  let privateRedis;
  const { where: pinnedWhere } = useLayout(layout); // pinned: this script and PostgreSQL off CPU 0, put back at exit
  if (layout === 'pinned') {
    privateRedis = await startPrivateRedis();
    redisUrl = privateRedis.url;
  }
  const where =
    layout === 'pinned'
      ? `${pinnedWhere.replace('each server', 'the API')}; a private redis-server with autocannon`
      : "nothing pinned: the API, the machine's PostgreSQL and Redis, and autocannon share every CPU";
  log(`layout ${layout}: ${where}`);
  await admin(`CREATE DATABASE ${database}`);
  try {
    execFileSync(process.execPath, [join(root, 'dist/cli.js'), 'migrations:run'], {
      env: baseEnv(),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const created = JSON.parse(
      execFileSync(process.execPath, [join(root, 'dist/cli.js'), 'tenants:create', '--name', 'Bench'], {
        env: baseEnv(),
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
        const cpu = Object.entries(r.cpu)
          .map(([k, v]) => `${k} ${v.toFixed(0)}`)
          .join(', ');
        log(
          `pair ${i + 1}/${pairs} limits ${mode.padEnd(3)}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms; CPU µs/request: ${cpu}`,
        );
      }
    }
    // Each pair's on and off runs are minutes apart at most, so their ratio is the least disturbed by the
    // VM's drifting CPU steal; the cost is the median of the pairs' costs.
    const costs = runs.on.map((on, i) => ((runs.off[i].rps - on.rps) / runs.off[i].rps) * 100);
    const cost = median(costs);
    const med = (mode, pick) => median(runs[mode].map(pick));
    const cpuCell = (mode) => ['api', 'redis', 'postgres', 'autocannon'].map((k) => med(mode, (r) => r.cpu[k]).toFixed(0)).join(' / ');
    const row = (mode) =>
      `| ${mode} | ${runs[mode].map((r) => r.rps.toFixed(0)).join(', ')} | ${med(mode, (r) => r.rps).toFixed(0)} | ` +
      `${med(mode, (r) => r.p50)} | ${med(mode, (r) => r.p99)} | ${cpuCell(mode)} |`;
    const section = [
      `### Layout: ${layout}`,
      '',
      `\`node bench/rate-limit.mjs --layout ${layout}\` (${new Date().toISOString().slice(0, 10)}): \`GET ${opts.path}\` with a live key, ` +
        `${connections} connections, ${duration} s per run after a 2 s warm-up, ${pairs} alternating on/off pairs, one API process ` +
        `(\`WORKERS=off\`, \`LOG_LEVEL=warn\`) on a ${cpuCount}-CPU machine; ${where}.`,
      '',
      '| limits | req/s per run | median req/s | p50 ms | p99 ms | CPU µs per request: API / Redis / PostgreSQL / autocannon |',
      '|---|---|---|---|---|---|',
      row('on'),
      row('off'),
      '',
      `Cost per pair: ${costs.map((c) => `${c.toFixed(1)}%`).join(', ')}.`,
      '',
      `**Cost of the limiter: ${cost.toFixed(1)}% of throughput** (median of the pairs; target: under 15%; negative: the API served more with limits on than off).`,
      '',
    ].join('\n');
    process.stdout.write(`${section}\n`);
    if (!opts['no-write']) writeReadme(section);
  } finally {
    await cleanup(privateRedis);
  }
}

main().catch((err) => {
  log(`bench failed: ${err.message}`);
  process.exitCode = 1;
});
