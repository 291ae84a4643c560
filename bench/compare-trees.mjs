// Two builds of the API against each other in one run: this tree's and another checkout's (`--base`), on one
// database with the same 10,000 patients, GET /patients/{id} (or, with --case post, POST /patients) in
// alternating A/B rounds. For "did this change the hot path's cost": separate runs of patients.mjs differ by
// more than the change being judged.
// Both trees must be built (`npm run build`); the database is migrated by this tree, so the base's code must
// read this tree's schema (true for GET by id across additive migrations).
//
// Usage: node bench/compare-trees.mjs --base /path/to/other/checkout [--head .] [--head-args="--node-flag"] [--base-args=...] [--case get|post] [--rounds 6] [--seconds 5] [--layout pinned|shared]
import { resolve } from 'node:path';
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
  sampleRss,
  useLayout,
  waitFor,
  withBench,
} from './lib.mjs';

const { values: opts } = parseArgs({
  options: {
    base: { type: 'string' },
    head: { type: 'string', default: '.' },
    'head-args': { type: 'string', default: '' },
    'base-args': { type: 'string', default: '' },
    case: { type: 'string', default: 'get' },
    rounds: { type: 'string', default: '6' },
    seconds: { type: 'string', default: '5' },
    layout: { type: 'string', default: defaultLayout() },
  },
});
if (!opts.base) throw new Error('--base /path/to/a/built/checkout is required');
const ROUNDS = Number(opts.rounds);
const SECONDS = Number(opts.seconds);
const PORTS = { head: 41421, base: 41422 };
const args = (line) => line.split(' ').filter(Boolean);

await withBench('compare', { LOG_LEVEL: 'warn' }, async (bench) => {
  bench.migrate();
  const { keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };
  const { onCpu0, where } = useLayout(opts.layout);
  log(`layout ${opts.layout}: ${where}`);
  const servers = {
    head: bench.start(
      resolve(opts.head, 'dist/main.js'),
      { PORT: String(PORTS.head), PGAPPNAME: 'bench-head' },
      args(opts['head-args']),
      onCpu0,
    ),
    base: bench.start(
      resolve(opts.base, 'dist/main.js'),
      { PORT: String(PORTS.base), PGAPPNAME: 'bench-base' },
      args(opts['base-args']),
      onCpu0,
    ),
  };
  for (const port of Object.values(PORTS)) await waitFor(`http://127.0.0.1:${port}/health/ready`);
  await bulkImport(`http://127.0.0.1:${PORTS.head}`, headers, patientRows(10_000));

  const db = await bench.sql();
  await db.query('VACUUM (ANALYZE) patients');
  const ids = (await db.query('SELECT id FROM patients')).rows.map((r) => r.id);
  const request =
    opts.case === 'post'
      ? {
          name: 'POST /patients',
          method: 'POST',
          path: '/api/v1/patients',
          body: JSON.stringify({
            firstName: 'Bench',
            lastName: 'Create',
            email: 'bench@example.com',
            phone: '+14155550100',
            tags: ['bench'],
          }),
        }
      : { name: 'GET /patients/{id}', method: 'GET', paths: () => `/api/v1/patients/${ids[Math.floor(Math.random() * ids.length)]}` };
  for (const port of Object.values(PORTS)) {
    const { name: _route, paths, path, ...how } = request;
    const res = await fetch(`http://127.0.0.1:${port}${path ?? paths()}`, { ...how, headers });
    if (!res.ok) throw new Error(`${request.name} on port ${port}: ${res.status} ${await res.text()}`);
  }
  const pids = { head: servers.head.pid, base: servers.base.pid };
  const underLoad = sampleRss(pids);
  const meter = cpuMeter(db, bench.database, pids, { head: 'bench-head', base: 'bench-base' });
  const runs = { head: [], base: [] };
  const ratios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const got = {};
    for (const name of round % 2 ? ['base', 'head'] : ['head', 'base']) {
      const { name: _route, path, ...how } = request;
      const target = { url: `http://127.0.0.1:${PORTS[name]}${path ?? ''}`, headers, ...how };
      await cannon({ ...target, duration: 2 });
      await meter.start();
      const r = await cannon({ ...target, duration: SECONDS });
      const cpu = await meter.stop(r.total);
      Object.assign(r, { cpu: cpu[name], pgCpu: cpu[`pg:${name}`] });
      got[name] = r;
      runs[name].push(r);
      log(
        `${name}: ${r.rps.toFixed(0)} req/s, ${r.errors} errors, p99 ${r.p99} ms, load ${r.load.toFixed(2)}, CPU µs/req ${r.cpu.toFixed(0)} + PostgreSQL ${r.pgCpu.toFixed(0)}`,
      );
    }
    ratios.push(got.head.rps / got.base.rps);
  }
  underLoad.stop();
  await db.end();
  const cell = (name, key) => median(runs[name].map((r) => r[key])).toFixed(0);
  console.log(
    [
      `${request.name}, ${ROUNDS} alternating rounds of ${SECONDS} s, layout ${opts.layout}, head ${opts.head} ${opts['head-args']}, base ${opts.base} ${opts['base-args']}:`,
      '',
      '| Tree | req/s (median) | CPU µs/req + PostgreSQL | p99 ms | peak RSS MiB |',
      '|---|---:|---:|---:|---:|',
      ...['head', 'base'].map(
        (n) =>
          `| ${n} | ${cell(n, 'rps')} | ${cell(n, 'cpu')} + ${cell(n, 'pgCpu')} | ${cell(n, 'p99')} | ${peakRssMiB(pids[n]).toFixed(0)} |`,
      ),
      '',
      `head/base throughput: **${median(ratios).toFixed(2)}** (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')}); load ${[...runs.head, ...runs.base].map((r) => r.load.toFixed(1)).join(', ')}`,
    ].join('\n'),
  );
});
