// Patients benchmark: the API against the floor (bench/bare-server.mjs) in alternating A/B rounds within
// one run. Seeds 10,000 realistic patients with a bulk import (timed end to end), then measures
// GET /patients/{id} (random ids over the 10,000), POST /patients and GET /patients?limit=50 with
// autocannon (32 connections), recording the load average at each run and each server's peak RSS.
// Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379; creates and drops
// its own database.
//
// Usage: node bench/patients.mjs [--seconds 10] [--rounds 3] [--limits off|on] [--cases get,post,list]
//                                [--api-args "--cpu-prof --cpu-prof-dir=/tmp/prof"] [--log-level warn]
//                                [--layout pinned|shared]
// --limits on: both servers run the API's sliding-window limiter (limits high enough to refuse nothing).
// --layout pinned (the default where it can be done): each server alone on CPU 0, autocannon and PostgreSQL
// on the other CPUs (bench/lib.mjs useLayout); shared pins nothing.
import { parseArgs } from 'node:util';
import {
  bulkImport,
  cannon,
  cpuMeter,
  defaultLayout,
  log,
  median,
  patientRows,
  peakRssMiB,
  rateLimitEnv,
  sampleRss,
  useLayout,
  waitFor,
  withBench,
} from './lib.mjs';

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    limits: { type: 'string', default: 'off' },
    cases: { type: 'string', default: 'get,post,list' },
    'api-args': { type: 'string', default: '' },
    'log-level': { type: 'string', default: 'warn' },
    layout: { type: 'string', default: defaultLayout() },
  },
});
const SECONDS = Number(opts.seconds);
const ROUNDS = Number(opts.rounds);
const API_PORT = 41401;
const BARE_PORT = 41402;
const PATIENTS = 10_000;
const limits =
  opts.limits === 'on' ? { ...rateLimitEnv('0'), RATE_LIMIT_LIVE_PER_SECOND: '1000000', RATE_LIMIT_LIVE_PER_HOUR: '100000000' } : {};

await withBench('patients', { LOG_LEVEL: opts['log-level'], ...limits }, async (bench) => {
  bench.migrate();
  const { keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };
  const { onCpu0, where } = useLayout(opts.layout);
  log(`layout ${opts.layout}: ${where}`);
  const api = bench.start('dist/main.js', { PORT: String(API_PORT) }, opts['api-args'].split(' ').filter(Boolean), onCpu0);
  const bare = bench.start('bench/bare-server.mjs', { PORT: String(BARE_PORT) }, [], onCpu0);
  await waitFor(`http://127.0.0.1:${API_PORT}/health/ready`);
  await waitFor(`http://127.0.0.1:${BARE_PORT}/api/v1/patients`);

  const { job, ms: importMs } = await bulkImport(`http://127.0.0.1:${API_PORT}`, headers, patientRows(PATIENTS));
  log(`import: ${job.status}, ${job.created} created, ${job.failed} failed in ${importMs.toFixed(0)} ms`);

  // Steady state before measuring: on a table that grew from nothing in seconds autovacuum has not caught
  // up (statistics, GIN pending lists) and would compete for the two cores mid-run.
  const db = await bench.sql();
  await db.query('VACUUM (ANALYZE) patients');
  const ids = (await db.query('SELECT id FROM patients')).rows.map((r) => r.id);
  const randomId = () => ids[Math.floor(Math.random() * ids.length)];

  const createBody = JSON.stringify({
    firstName: 'Bench',
    lastName: 'Create',
    email: 'bench@example.com',
    phone: '+14155550100',
    tags: ['bench'],
  });
  const cases = [
    { key: 'get', name: 'GET /patients/{id}', method: 'GET', paths: () => `/api/v1/patients/${randomId()}`, target: 0.75 },
    { key: 'post', name: 'POST /patients', method: 'POST', path: '/api/v1/patients', body: createBody, target: 0.6 },
    { key: 'list', name: 'GET /patients?limit=50', method: 'GET', path: '/api/v1/patients?limit=50', target: 0.6 },
  ].filter((c) => opts.cases.split(',').includes(c.key));

  const servers = { api: API_PORT, bare: BARE_PORT };
  const underLoad = sampleRss({ api: api.pid, bare: bare.pid });
  const meter = cpuMeter(db, bench.database, { api: api.pid, bare: bare.pid }, { bare: 'bench-floor' });
  const results = [];
  for (const c of cases) {
    const runs = { api: [], bare: [] };
    const ratios = [];
    for (let round = 0; round < ROUNDS; round++) {
      // A/B, then B/A: neither server always runs first (drift in the machine's load cancels out).
      const order = round % 2 ? ['bare', 'api'] : ['api', 'bare'];
      const got = {};
      for (const server of order) {
        const target = {
          url: `http://127.0.0.1:${servers[server]}${c.path ?? ''}`,
          method: c.method,
          headers,
          body: c.body,
          paths: c.paths,
        };
        await cannon({ ...target, duration: 2 }); // warm-up
        await meter.start();
        const r = await cannon({ ...target, duration: SECONDS });
        const cpu = await meter.stop(r.total);
        // µs of CPU per request: the server process, and the PostgreSQL backends serving it.
        r.cpu = server === 'api' ? cpu.api : cpu.bare;
        r.pgCpu = server === 'api' ? cpu['pg:others'] : cpu['pg:bare'];
        got[server] = r;
        runs[server].push(r);
        log(
          `${c.name} ${server.padEnd(4)}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms, errors ${r.errors}, load ${r.load.toFixed(2)}, CPU µs/req ${r.cpu.toFixed(0)} + PostgreSQL ${r.pgCpu.toFixed(0)}`,
        );
      }
      ratios.push(got.api.rps / got.bare.rps);
    }
    results.push({ ...c, runs, ratios });
  }

  underLoad.stop();
  await db.end();
  const rss = { api: peakRssMiB(api.pid), bare: peakRssMiB(bare.pid) };
  const cpuCell = (rs) => `${median(rs.map((x) => x.cpu)).toFixed(0)} + ${median(rs.map((x) => x.pgCpu)).toFixed(0)}`;
  const fmt = (xs, d = 0) => xs.map((x) => x.toFixed(d)).join(', ');
  const lines = [
    `10,000-row bulk import, end to end (POST → completed): ${(importMs / 1000).toFixed(2)} s — ${job.created} created, ${job.failed} failed`,
    '',
    `autocannon, 32 connections, ${SECONDS} s per run after a 2 s warm-up, ${ROUNDS} alternating A/B rounds, layout ${opts.layout}, limiter ${opts.limits}, LOG_LEVEL=${opts['log-level']}; ratio = median of the rounds' API/floor ratios:`,
    '',
    '| Endpoint | API req/s (median) | floor req/s (median) | ratio | per round | target | API p99 ms | floor p99 ms | CPU µs/req API + its PostgreSQL | floor + its PostgreSQL | errors | load avg at runs |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|',
    ...results.map((r) => {
      const all = [...r.runs.api, ...r.runs.bare];
      return `| ${r.name} | ${median(r.runs.api.map((x) => x.rps)).toFixed(0)} | ${median(r.runs.bare.map((x) => x.rps)).toFixed(0)} | **${median(r.ratios).toFixed(2)}** | ${fmt(r.ratios, 2)} | ≥ ${r.target} | ${median(r.runs.api.map((x) => x.p99))} | ${median(r.runs.bare.map((x) => x.p99))} | ${cpuCell(r.runs.api)} | ${cpuCell(r.runs.bare)} | ${all.reduce((n, x) => n + x.errors, 0)} | ${fmt(
        all.map((x) => x.load),
        1,
      )} |`;
    }),
    '',
    `Peak RSS under load (VmRSS sampled every 100 ms during the runs): API **${underLoad.peak.api.toFixed(0)} MiB**, floor ${underLoad.peak.bare.toFixed(0)} MiB (target < 250 MiB); over the whole run, the 10,000-row import included (VmHWM): API ${rss.api.toFixed(0)} MiB, floor ${rss.bare.toFixed(0)} MiB.`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
});
