// What the bench scripts share: a fresh database and Redis prefix per run, the built CLI (migrations,
// tenants), starting and stopping servers, realistic patients, autocannon runs, and what a run is measured
// with besides req/s (load average, peak RSS, CPU time). Loopback only; every run is bounded in time.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import pg from 'pg';

export const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const log = (line) => process.stderr.write(`${line}\n`);
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Every RATE_LIMIT_* variable set to `value` ('0': no limiter, no Redis call). */
export function rateLimitEnv(value) {
  return Object.fromEntries(
    ['TEST', 'LIVE', 'IP'].flatMap((m) => ['SECOND', 'HOUR', 'DAY'].map((w) => [`RATE_LIMIT_${m}_PER_${w}`, value])),
  );
}

/**
 * A bench run: its own database (created here, dropped by `close`) and Redis prefix, and the environment
 * the built API and CLI run with. `env` is merged over the defaults (LOG_LEVEL=warn, limits off).
 * `options.database` names the database instead (reused when it exists: data that takes minutes to build),
 * and `options.keep` leaves it in place at `close`.
 */
export async function openBench(name, env = {}, options = {}) {
  const run = Date.now().toString(36);
  const database = options.database ?? `pm_bench_${name}_${run}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  const prefix = `pmbench:${name}:${run}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount > 0;
  if (!exists) await admin.query(`CREATE DATABASE ${database}`);
  const children = [];
  const servers = [];
  const bench = {
    database,
    databaseUrl: url.toString(),
    env: {
      ...process.env,
      DATABASE_URL: url.toString(),
      REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_PREFIX: prefix,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      MIGRATIONS_RUN: 'false',
      // The servers run with the image's Node options, as deployed (the floor too).
      NODE_OPTIONS: process.env.NODE_OPTIONS ?? imageNodeOptions(),
      ...rateLimitEnv('0'),
      ...env,
    },
    /** Applies the migrations with the built CLI. */
    migrate() {
      execFileSync(process.execPath, ['dist/cli.js', 'migrations:run'], { env: bench.env, stdio: ['ignore', 'ignore', 'inherit'] });
    },
    /** A tenant with one OWNER key per mode: { tenantId, keys: { test, live } }. */
    createTenant(tenantName = 'Bench Clinic') {
      const created = JSON.parse(
        execFileSync(process.execPath, ['dist/cli.js', 'tenants:create', '--name', tenantName], { env: bench.env }).toString(),
      );
      const keys = Object.fromEntries(created.apiKeys.map((k) => [k.mode, k.key]));
      return { tenantId: created.tenant.id, keys };
    },
    /**
     * Starts `node [args] script` with the bench environment plus `env` (under `wrapper`, e.g. valgrind,
     * when given); stopped by `stop` or `close`.
     */
    start(script, env = {}, args = [], wrapper = []) {
      const [command, ...rest] = [...wrapper, process.execPath, ...args, script];
      const child = spawn(command, rest, { env: { ...bench.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
      children.push(child);
      child.once('exit', (code, signal) => {
        if (!child.stopping) exitedEarly = `${script} (exit ${code ?? signal})`;
      });
      return child;
    },
    async stop(child) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.stopping = true;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
    },
    /**
     * Listens with `server` (a receiver the API delivers to: node:http, smtp-server …) on 127.0.0.1:`port`;
     * closed by `close`, after the servers it started have stopped.
     */
    async listen(server, port) {
      await new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      servers.push(server);
      return server;
    },
    /** A client on the bench database (the caller ends it). */
    async sql() {
      const client = new pg.Client({ connectionString: bench.databaseUrl });
      await client.connect();
      return client;
    },
    async close() {
      await Promise.all(children.map((c) => bench.stop(c)));
      await Promise.all(
        servers.map((server) => Promise.race([new Promise((resolve) => server.close(resolve)), sleep(5_000, undefined, { ref: false })])),
      );
      if (!options.keep) await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
      cleanRedis(prefix);
    },
  };
  return bench;
}

/** Runs `work(bench)` on a fresh bench (see openBench for `options`) and always cleans up; exits non-zero on failure. */
export async function withBench(name, env, work, options = {}) {
  const bench = await openBench(name, env, options);
  const onSignal = () => void bench.close().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  try {
    return await work(bench);
  } catch (err) {
    log(err.stack ?? String(err));
    process.exitCode = 1;
  } finally {
    process.off('SIGINT', onSignal);
    await bench.close();
  }
}

function cleanRedis(prefix) {
  try {
    const keys = execFileSync('redis-cli', ['--scan', '--pattern', `${prefix}:*`])
      .toString()
      .split('\n')
      .filter(Boolean);
    for (let i = 0; i < keys.length; i += 500) execFileSync('redis-cli', ['del', ...keys.slice(i, i + 500)]);
  } catch {
    log('could not clean the Redis keys (redis-cli missing?)');
  }
}

/** A process `bench.start` started that exited without being stopped: no `waitFor` can succeed then. */
let exitedEarly = null;

/**
 * Resolves once `target` is ready: a URL that answers below 500 (polled every 100 ms), or a function whose
 * answer (awaited) is truthy (polled every 20 ms); throws after `timeoutMs`, naming `what`, or at once when
 * a started process has exited on its own (a server that failed to start).
 */
export async function waitFor(target, timeoutMs = 180_000, what = String(target)) {
  const url = typeof target === 'string';
  const ready = url ? async () => (await fetch(target)).status < 500 : target;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await ready()) return;
    } catch {
      // not yet
    }
    if (exitedEarly) throw new Error(`${exitedEarly} exited while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(url ? `${target} did not come up` : `${what} did not happen within ${timeoutMs} ms`);
    await sleep(url ? 100 : 20);
  }
}

const FIRST = [
  'Ada',
  'Ben',
  'Chloé',
  'Dmitri',
  'Eve',
  'Farah',
  'Gus',
  'Hana',
  'Ivan',
  'Jules',
  'Kofi',
  'Lena',
  'Mateo',
  'Noor',
  'Omar',
  'Priya',
];
const LAST = ['Okafor', 'Smith', 'García', 'Müller', 'Nakamura', 'Rossi', 'Kowalski', 'Dubois', 'Olsen', 'Haddad', 'Silva', 'Nguyen'];
const STREETS = ['Main St', 'Oak Ave', 'Mission St', 'Valencia St', 'Market St', 'Pine St'];
const TYPES = ['prospect', 'patient', 'patient', 'lead'];
const STATUSES = ['active', 'active', 'active', 'inactive'];

/** `n` realistic patients for a bulk import: varied names, emails, valid phones, birth dates, addresses and tags. */
export function patientRows(n, prefix = 'bench') {
  return Array.from({ length: n }, (_, i) => ({
    externalId: `${prefix}-${i}`,
    firstName: FIRST[i % FIRST.length],
    lastName: `${LAST[(i * 7) % LAST.length]}${i % 3 === 0 ? '-Lee' : ''}`,
    email: `${FIRST[i % FIRST.length].toLowerCase()}.${i}@example.com`,
    phone: `+1415555${String(i % 10_000).padStart(4, '0')}`,
    dateOfBirth: `${1940 + (i % 70)}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
    gender: i % 2 ? 'female' : 'male',
    address: `${1 + (i % 999)} ${STREETS[i % STREETS.length]}, San Francisco, CA`,
    patientType: TYPES[i % TYPES.length],
    patientStatus: STATUSES[i % STATUSES.length],
    tags: [`cohort-${i % 20}`, ...(i % 5 === 0 ? ['vip'] : [])],
  }));
}

/** Bulk-imports `rows` through the API and waits for the job; answers the job's report and how long it took. */
export async function bulkImport(base, headers, rows) {
  const t0 = performance.now();
  const accepted = await fetch(`${base}/api/v1/patients/bulk-import`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ patients: rows }),
  }).then((r) => r.json());
  if (!accepted.jobId) throw new Error(`bulk import refused: ${JSON.stringify(accepted)}`);
  let job;
  do {
    await sleep(25);
    job = await fetch(`${base}/api/v1/patients/bulk-import/${accepted.jobId}`, { headers }).then((r) => r.json());
  } while (job.status === 'queued' || job.status === 'running');
  return { job, ms: performance.now() - t0 };
}

/**
 * Seeds `count` patients through a started API with its import worker (port `port`, stopped after), then
 * `VACUUM (ANALYZE) patients`; answers a database client (the caller ends it) and the patients' ids.
 */
export async function seedPatients(bench, port, headers, count) {
  const base = `http://127.0.0.1:${port}`;
  const seeder = bench.start('dist/main.js', { PORT: String(port), WORKERS: 'on' });
  await waitFor(`${base}/health/ready`);
  const { job } = await bulkImport(base, headers, patientRows(count));
  if (job.created !== count) throw new Error(`seeding created ${job.created} of ${count}`);
  await bench.stop(seeder);
  const db = await bench.sql();
  await db.query('VACUUM (ANALYZE) patients');
  const ids = (await db.query('SELECT id FROM patients')).rows.map((r) => r.id);
  return { db, ids };
}

/**
 * One autocannon run (32 connections by default). `paths`, when given, is a function answering each
 * request's path (random ids). Answers req/s, mean/p50/p99 latency in ms, errors (including non-2xx), and the
 * 1-minute load average when the run started. The latencies are each 2xx response's own time: autocannon's
 * histogram keeps whole milliseconds (1.9 ms counts as 1).
 */
export async function cannon({ paths, ...opts }) {
  const load = loadavg()[0];
  const options = { connections: 32, ...opts };
  if (paths) {
    options.requests = [
      {
        setupRequest: (req) => {
          req.path = paths();
          return req;
        },
      },
    ];
  }
  const times = [];
  const r = await new Promise((resolve, reject) => {
    const run = autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
    run.on('response', (client, status, bytes, ms) => {
      if (status >= 200 && status < 300) times.push(ms);
    });
  });
  times.sort((a, b) => a - b);
  const at = (q) => Math.round((times[Math.max(0, Math.ceil(q * times.length) - 1)] ?? NaN) * 10) / 10;
  return {
    rps: r.requests.average,
    total: r.requests.total,
    mean: times.reduce((sum, ms) => sum + ms, 0) / times.length,
    p50: at(0.5),
    p99: at(0.99),
    errors: r.errors + r.timeouts + r.non2xx,
    load,
  };
}

function statusMiB(pid, field) {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Resident set size of a process now, in MiB (VmRSS). */
export const rssMiB = (pid) => statusMiB(pid, 'VmRSS');

/** Peak resident set size of a process over its life so far, in MiB (VmHWM). */
export const peakRssMiB = (pid) => statusMiB(pid, 'VmHWM');

/** The highest resident set size of each process while sampling (every 100 ms) until `stop()`, in MiB. */
export function sampleRss(pids) {
  const peak = Object.fromEntries(Object.keys(pids).map((name) => [name, 0]));
  const timer = setInterval(() => {
    for (const [name, pid] of Object.entries(pids)) peak[name] = Math.max(peak[name], rssMiB(pid) || 0);
  }, 100);
  return {
    peak,
    stop: () => clearInterval(timer),
  };
}

/** CPU milliseconds (user + system) a process (or, given `tid`, one of its threads) has used so far; 0 once it is gone. */
export function cpuMs(pid, tid) {
  try {
    const fields = readFileSync(tid ? `/proc/${pid}/task/${tid}/stat` : `/proc/${pid}/stat`, 'utf8')
      .split(') ')[1]
      .split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

/**
 * CPU time per request, which the machine's other load disturbs far less than req/s: `start()` before a
 * run, `stop(requests)` after answers µs per request of each named process (its main thread apart, as
 * `main:<name>`) and of the PostgreSQL backends serving the bench database, split by application_name
 * (`pgApps` maps a name to one, which also takes its `<name>/…` connections, such as `<name>/audit-writer`,
 * unless they are named themselves; the rest go to `others`).
 */
export function cpuMeter(db, database, processes, pgApps = {}) {
  let before;
  const snapshot = async () => {
    const { rows } = await db.query('SELECT pid, application_name FROM pg_stat_activity WHERE datname = $1', [database]);
    const byName = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuMs(pid)]));
    // A Node process's main thread (tid = pid) runs the JavaScript; the rest is GC helpers, libuv's pool, etc.
    const mainThread = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, cpuMs(pid, pid)]));
    const backends = rows.map((r) => ({ pid: r.pid, app: r.application_name, ms: cpuMs(r.pid) }));
    return { byName, mainThread, backends };
  };
  return {
    async start() {
      before = await snapshot();
    },
    async stop(requests) {
      const after = await snapshot();
      const out = {};
      for (const name of Object.keys(processes)) {
        out[name] = ((after.byName[name] - before.byName[name]) * 1000) / requests;
        out[`main:${name}`] = ((after.mainThread[name] - before.mainThread[name]) * 1000) / requests;
      }
      const names = Object.keys(pgApps);
      for (const name of [...names, 'others']) out[`pg:${name}`] = 0;
      for (const b of after.backends) {
        const was = before.backends.find((x) => x.pid === b.pid)?.ms ?? 0;
        const name = names.find((n) => pgApps[n] === b.app) ?? names.find((n) => b.app?.startsWith(`${pgApps[n]}/`)) ?? 'others';
        out[`pg:${name}`] += ((b.ms - was) * 1000) / requests;
      }
      return out;
    },
  };
}

/** Whether `binary` is on PATH. */
export function onPath(binary) {
  try {
    execFileSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The CPUs other than CPU 0, where a pinned layout puts everything but the API. */
export const OTHER_CPUS = cpus().length > 2 ? `1-${cpus().length - 1}` : '1';

/** The NODE_OPTIONS the Dockerfile gives the API and worker processes. */
function imageNodeOptions() {
  const dockerfile = readFileSync(new URL('../Dockerfile', import.meta.url), 'utf8');
  return /^ENV NODE_OPTIONS=(.*)$/m.exec(dockerfile)?.[1]?.trim() ?? '';
}

/** The pids of the machine's PostgreSQL processes. */
export const postgresPids = () =>
  readdirSync('/proc').filter((pid) => {
    try {
      return /^\d+$/.test(pid) && readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('postgres');
    } catch {
      return false;
    }
  });

/**
 * Moves the machine's PostgreSQL (the postmaster, whose new backends inherit it, and the running processes)
 * off CPU 0; answers how to put every process back on the CPUs it had. Null when not permitted (PostgreSQL
 * owned by another user): it then stays where it was, and the results say so.
 */
function pinPostgres() {
  const previous = new Map();
  const setMask = (pid, mask) => {
    try {
      execFileSync('taskset', ['-p', mask, pid], { stdio: 'ignore' });
    } catch {
      // exited meanwhile
    }
  };
  try {
    for (const pid of postgresPids()) {
      try {
        const mask = /: (\S+)$/.exec(execFileSync('taskset', ['-p', pid], { stdio: 'pipe' }).toString().trim())?.[1];
        execFileSync('taskset', ['-p', '-c', OTHER_CPUS, pid], { stdio: 'ignore' });
        if (mask) previous.set(pid, mask);
      } catch (err) {
        // A backend that ended meanwhile (another client's connection closing) is no reason to give up.
        if (existsSync(`/proc/${pid}`)) throw err;
      }
    }
  } catch {
    for (const [pid, mask] of previous) setMask(pid, mask);
    return null;
  }
  return () => {
    const all = [...new Set([...postgresPids(), ...previous.keys()])];
    const mask = previous.values().next().value ?? 'ffffffff';
    for (const pid of all) setMask(pid, previous.get(pid) ?? mask);
  };
}

/** `pinned` where it can be done (2+ CPUs, `taskset`), else `shared`. */
export const defaultLayout = () => (cpus().length >= 2 && onPath('taskset') ? 'pinned' : 'shared');

/**
 * Sets up a layout. `pinned`: this script (autocannon) and the machine's PostgreSQL move off CPU 0 (put back
 * at exit), and `onCpu0` is the wrapper that starts a server alone there. `apart`: PostgreSQL alone off CPU 0,
 * this script with the servers on it, so that the database has CPU to spare, as on a host of its own, and
 * its extra work shows as its CPU per request rather than as autocannon's lost load. Unpinned, the scheduler
 * keeps each server next to autocannon or away from it for the server's whole life: two identical API
 * processes measured 15-20 % apart (bench/README.md, Audit log). `shared` pins nothing.
 */
export function useLayout(layout) {
  if (!['pinned', 'apart', 'shared'].includes(layout)) throw new Error('the layout is pinned, apart or shared');
  if (layout === 'shared') return { onCpu0: [], where: 'nothing pinned' };
  execFileSync('taskset', ['-a', '-p', '-c', layout === 'apart' ? '0' : OTHER_CPUS, String(process.pid)], { stdio: 'ignore' });
  const unpinPostgres = pinPostgres();
  process.once('exit', () => unpinPostgres?.()); // however the script ends
  const postgres = unpinPostgres ? `PostgreSQL on CPU ${OTHER_CPUS}` : 'PostgreSQL (not permitted to pin it) unpinned';
  const where =
    layout === 'apart' ? `servers and autocannon on CPU 0; ${postgres}, alone` : `each server alone on CPU 0; autocannon and ${postgres}`;
  return { onCpu0: ['taskset', '-c', '0'], where };
}
