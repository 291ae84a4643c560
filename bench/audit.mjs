// Audit-log cost on GET /patients/{id}: the built API with the audit log on, then off
// (AUDIT_LOG_ENABLED=false, a switch for this comparison only), in alternating rounds, autocannon with 32
// connections over random ids of 2,000 seeded patients. Reports req/s and the CPU time per request of the
// API process and of the PostgreSQL backends serving it (the audit log's cost is mostly PostgreSQL's:
// inserting the batched rows into audit_log and its indexes), which the machine's other load disturbs far
// less than req/s.
// Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379.
// Creates and drops its own database. Usage: node bench/audit.mjs [seconds=10] [rounds=5]
import { bulkImport, cannon, cpuMeter, log, median, patientRows, waitFor, withBench } from './lib.mjs';

const SECONDS = Number(process.argv[2] ?? 10);
const ROUNDS = Number(process.argv[3] ?? 5);
const PATIENTS = 2_000;
const PORT = 41411;
const base = `http://127.0.0.1:${PORT}`;

await withBench('audit', { PORT: String(PORT), WORKERS: 'off' }, async (bench) => {
  bench.migrate();
  const { keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };

  // Seeding needs the import worker: one start with workers on, then every measured start without.
  const seeder = bench.start('dist/main.js', { WORKERS: 'on' });
  await waitFor(`${base}/health/ready`);
  const { job } = await bulkImport(base, headers, patientRows(PATIENTS));
  if (job.created !== PATIENTS) throw new Error(`seeding created ${job.created} of ${PATIENTS}`);
  await bench.stop(seeder);
  const db = await bench.sql();
  await db.query('VACUUM (ANALYZE) patients');
  const ids = (await db.query('SELECT id FROM patients')).rows.map((r) => r.id);
  const randomId = () => ids[Math.floor(Math.random() * ids.length)];

  /** Starts the API with the audit log on or off, measures GET /patients/{id}, stops it. */
  async function measure(audit) {
    const api = bench.start('dist/main.js', { AUDIT_LOG_ENABLED: String(audit) });
    try {
      await waitFor(`${base}/health/ready`);
      const target = { url: base, headers, paths: () => `/api/v1/patients/${randomId()}` };
      await cannon({ ...target, duration: 2 });
      const meter = cpuMeter(db, bench.database, { api: api.pid });
      await meter.start();
      const r = await cannon({ ...target, duration: SECONDS });
      // The last batch of audit rows is written within a flush interval of the run's end: count it.
      if (audit) await new Promise((resolve) => setTimeout(resolve, 1500));
      const cpu = await meter.stop(r.total);
      return { ...r, cpu: cpu.api, pgCpu: cpu['pg:others'] };
    } finally {
      await bench.stop(api);
    }
  }

  const on = [];
  const off = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate the order, so that a machine getting busier does not favour one side.
    const order = round % 2 ? [true, false] : [false, true];
    for (const audit of order) (audit ? on : off).push(await measure(audit));
    const [a, b] = [on.at(-1), off.at(-1)];
    log(
      `round ${round}: on ${a.rps.toFixed(0)} req/s (CPU µs/req ${a.cpu.toFixed(0)} + PostgreSQL ${a.pgCpu.toFixed(0)}), ` +
        `off ${b.rps.toFixed(0)} req/s (${b.cpu.toFixed(0)} + ${b.pgCpu.toFixed(0)}) (load ${a.load.toFixed(1)})`,
    );
  }
  const m = (rs, f) => median(rs.map(f));
  const onRps = m(on, (r) => r.rps);
  const offRps = m(off, (r) => r.rps);
  const onCpu = m(on, (r) => r.cpu + r.pgCpu);
  const offCpu = m(off, (r) => r.cpu + r.pgCpu);
  const rpsCost = (1 - onRps / offRps) * 100;
  const cpuCost = (onCpu / offCpu - 1) * 100;
  console.log(
    `| GET /patients/{id}, ${ROUNDS} rounds of ${SECONDS} s | audit on ${onRps.toFixed(0)} req/s (p99 ${m(on, (r) => r.p99)} ms), CPU µs/req ${m(on, (r) => r.cpu).toFixed(0)} + PostgreSQL ${m(on, (r) => r.pgCpu).toFixed(0)} ` +
      `| audit off ${offRps.toFixed(0)} req/s (p99 ${m(off, (r) => r.p99)} ms), ${m(off, (r) => r.cpu).toFixed(0)} + ${m(off, (r) => r.pgCpu).toFixed(0)} ` +
      `| cost: throughput ${rpsCost.toFixed(1)} %, CPU per request ${cpuCost.toFixed(1)} % | errors ${[...on, ...off].reduce((n, r) => n + r.errors, 0)} |`,
  );
  await db.end();
});
