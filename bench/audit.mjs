// Audit-log cost on GET /patients/{id}: pairs of built APIs on one database, one with the audit log on and
// one with AUDIT_LOG_ENABLED=false (a switch for this comparison only), each pair started and warmed, then
// measured in alternating rounds (on/off, then off/on), autocannon with 32 connections over random ids of
// 2,000 seeded patients. Reports req/s and the CPU time per request of the API process (its main thread,
// which runs the JavaScript, apart) and of the PostgreSQL backends serving it (by application_name), the
// audit writer's own connection included. Two API processes with the same configuration still differ by a
// few per cent for their whole life (JIT state); several pairs average that out.
// Layouts: pinned (the default where `taskset` is on PATH and there are 2+ CPUs) runs each API alone on
// CPU 0, and this script (autocannon) and the machine's PostgreSQL on the others, as rate-limit.mjs does;
// apart runs the APIs and autocannon on CPU 0 and PostgreSQL alone on the others (the database with CPU to
// spare, as on a host of its own); shared pins nothing. Unpinned, the scheduler places each API process next
// to autocannon or away from it for its whole life, and two processes with the same configuration differed
// by 15-20 % (bench/README.md). `control` runs both APIs of each pair with the log off: what the method
// reports where there is nothing to find (the slots' bias and the rounds' spread).
// With BENCH_ACCESS_LOG=1 it measures the patient access log instead, on GET /patients?limit=50: both APIs
// audit, and the "off" one runs with PATIENT_ACCESS_LOG_ENABLED=false (no patients recorded with the entries).
// Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379. Creates and drops
// its own database. Usage: node bench/audit.mjs [seconds=10] [rounds=3] [pinned|apart|shared] [pairs=3] [control]
import { cannon, cpuMeter, defaultLayout, log, median, seedPatients, useLayout, waitFor, withBench } from './lib.mjs';

const SECONDS = Number(process.argv[2] ?? 10);
const ROUNDS = Number(process.argv[3] ?? 3);
const PAIRS = Number(process.argv[5] ?? 3);
const LAYOUT = process.argv[4] ?? defaultLayout();
const CONTROL = process.argv[6] === 'control';
const PATIENTS = 2_000;
const PORTS = { on: 41411, off: 41412 };
const ACCESS_LOG = process.env.BENCH_ACCESS_LOG === '1';
/** The variable each side of a pair sets, and the route measured. */
const SWITCH = ACCESS_LOG ? 'PATIENT_ACCESS_LOG_ENABLED' : 'AUDIT_LOG_ENABLED';
const ROUTE = ACCESS_LOG ? 'GET /patients?limit=50 (access log on/off)' : 'GET /patients/{id}';
const url = (side) => `http://127.0.0.1:${PORTS[side]}`;

await withBench('audit', { WORKERS: 'off' }, async (bench) => {
  bench.migrate();
  const { keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };

  // Seeding needs the import worker: one start with workers on, then the two measured APIs without.
  const { db, ids } = await seedPatients(bench, PORTS.on, headers, PATIENTS);
  const randomId = () => ids[Math.floor(Math.random() * ids.length)];

  const { onCpu0, where } = useLayout(LAYOUT);
  log(`layout ${LAYOUT}: ${where}`);
  const target = (side) => ({
    url: url(side),
    headers,
    paths: () => (ACCESS_LOG ? '/api/v1/patients?limit=50' : `/api/v1/patients/${randomId()}`),
  });
  const runs = { on: [], off: [] };
  const costs = [];
  for (let pair = 1; pair <= PAIRS; pair++) {
    // application_name tells the meter which PostgreSQL backends serve which API.
    const apis = {
      on: bench.start('dist/main.js', { PORT: String(PORTS.on), [SWITCH]: String(!CONTROL), PGAPPNAME: 'bench-audit-on' }, [], onCpu0),
      off: bench.start('dist/main.js', { PORT: String(PORTS.off), [SWITCH]: 'false', PGAPPNAME: 'bench-audit-off' }, [], onCpu0),
    };
    for (const side of ['on', 'off']) await waitFor(`${url(side)}/health/ready`);
    for (const side of ['on', 'off']) await cannon({ ...target(side), duration: 5 }); // JIT warm-up, pools filled

    // The audit writer's own connection (AuditLoader) is named apart, and counted in its API's PostgreSQL CPU.
    // The "off" side's writer too: with BENCH_ACCESS_LOG both sides audit (without it, it writes nothing).
    const pgApps = {
      on: 'bench-audit-on',
      off: 'bench-audit-off',
      writer: 'bench-audit-on/audit-writer',
      writerOff: 'bench-audit-off/audit-writer',
    };
    const meter = cpuMeter(db, bench.database, { on: apis.on.pid, off: apis.off.pid }, pgApps);
    /** One measured run of `side`, its audit rows written (a flush interval after the run) before the meter stops. */
    const measure = async (side) => {
      await cannon({ ...target(side), duration: 2 });
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the warm-up's last entries flushed outside the window
      await meter.start();
      const r = await cannon({ ...target(side), duration: SECONDS });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const cpu = await meter.stop(r.total);
      const writer = side === 'on' ? cpu['pg:writer'] : cpu['pg:writerOff'];
      return { ...r, cpu: cpu[side], mainCpu: cpu[`main:${side}`], pgCpu: cpu[`pg:${side}`] + writer, writer };
    };
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternate the order, so that a machine getting busier does not favour one side.
      for (const side of round % 2 ? ['on', 'off'] : ['off', 'on']) runs[side].push(await measure(side));
      const [a, b] = [runs.on.at(-1), runs.off.at(-1)];
      costs.push({
        rps: 1 - a.rps / b.rps,
        cpu: (a.cpu + a.pgCpu) / (b.cpu + b.pgCpu) - 1,
        apiCpu: a.cpu / b.cpu - 1,
        mainCpu: a.mainCpu / b.mainCpu - 1,
      });
      log(
        `pair ${pair} round ${round}: on ${a.rps.toFixed(0)} req/s (CPU µs/req ${a.cpu.toFixed(0)} [main thread ${a.mainCpu.toFixed(0)}] + PostgreSQL ${a.pgCpu.toFixed(0)}, writer ${a.writer.toFixed(0)} of it), ` +
          `off ${b.rps.toFixed(0)} req/s (${b.cpu.toFixed(0)} [${b.mainCpu.toFixed(0)}] + ${b.pgCpu.toFixed(0)}) (load ${a.load.toFixed(1)})`,
      );
    }
    await Promise.all([bench.stop(apis.on), bench.stop(apis.off)]);
  }
  const m = (rs, f) => median(rs.map(f));
  const pct = (x) => `${(x * 100).toFixed(1)} %`;
  const quartiles = (xs) => [0.25, 0.75].map((q) => xs.toSorted((x, y) => x - y)[Math.round(q * (xs.length - 1))]);
  console.log(
    `| ${ROUTE}, ${LAYOUT}${CONTROL ? ', control (the log off on both sides)' : ''}, ${PAIRS} pairs of processes × ${ROUNDS} rounds of ${SECONDS} s | audit on ${m(runs.on, (r) => r.rps).toFixed(0)} req/s (p99 ${m(runs.on, (r) => r.p99)} ms), CPU µs/req ${m(runs.on, (r) => r.cpu).toFixed(0)} [main thread ${m(runs.on, (r) => r.mainCpu).toFixed(0)}] + PostgreSQL ${m(runs.on, (r) => r.pgCpu).toFixed(0)} (writer ${m(runs.on, (r) => r.writer).toFixed(0)}) ` +
      `| audit off ${m(runs.off, (r) => r.rps).toFixed(0)} req/s (p99 ${m(runs.off, (r) => r.p99)} ms), ${m(runs.off, (r) => r.cpu).toFixed(0)} [${m(runs.off, (r) => r.mainCpu).toFixed(0)}] + ${m(runs.off, (r) => r.pgCpu).toFixed(0)} ` +
      `| cost (median of the rounds): throughput ${pct(m(costs, (c) => c.rps))} (quartiles ${quartiles(costs.map((c) => c.rps))
        .map(pct)
        .join(' to ')}), ` +
      `CPU per request ${pct(m(costs, (c) => c.cpu))}, the API's alone ${pct(m(costs, (c) => c.apiCpu))} (its main thread ${pct(m(costs, (c) => c.mainCpu))}) ` +
      `| per round: ${costs.map((c) => pct(c.rps)).join(', ')} | errors ${[...runs.on, ...runs.off].reduce((n, r) => n + r.errors, 0)} |`,
  );
  await db.end();
});
