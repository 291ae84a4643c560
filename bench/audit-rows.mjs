// Where the audit log's cost on GET /patients/{id} comes from: the database's work for its rows. One built
// API with the audit log off serves GETs (pinned alone on CPU 0, as in audit.mjs) while, in alternate
// rounds, a separate process (audit-rows-writer.mjs, on the other CPUs with autocannon and PostgreSQL)
// COPYs audit rows, encoded by the API's own AuditCopyBuffer in the API writer's batches, into a table of
// the given layout at the rate the API was serving. Nothing changes in the API between the rounds, so the
// cost is the rows' alone: 1 - req/s with the writer / req/s without, the median of the rounds. The
// writer's own encoding runs on the other CPUs here (in the API it runs on CPU 0), so its cost is counted too.
// Layouts: shipped (audit_log's indexes), heap (none), pk (the primary key only), pk+key (and the key
// index), pk+key+hash (and a hash index on resource_id instead of the resource B-tree).
// Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379.
// Usage: node bench/audit-rows.mjs [layouts=shipped,heap,pk,pk+key,pk+key+hash] [seconds=6] [rounds=3]
import { fork } from 'node:child_process';
import { cannon, cpuMeter, log, median, seedPatients, useLayout, waitFor, withBench } from './lib.mjs';

const LAYOUTS = (process.argv[2] ?? 'shipped,heap,pk,pk+key,pk+key+hash').split(',');
const SECONDS = Number(process.argv[3] ?? 6);
const ROUNDS = Number(process.argv[4] ?? 3);
const PATIENTS = 2_000;
const PORT = 41413;
const url = `http://127.0.0.1:${PORT}`;

/** The statements that make `audit_rows` in a layout, from the migrated audit_log. */
const TABLES = {
  shipped: ['CREATE TABLE audit_rows (LIKE audit_log INCLUDING ALL)'],
  heap: ['CREATE TABLE audit_rows (LIKE audit_log INCLUDING DEFAULTS)'],
  pk: ['CREATE TABLE audit_rows (LIKE audit_log INCLUDING DEFAULTS)', 'ALTER TABLE audit_rows ADD PRIMARY KEY (tenant_id, mode, at, id)'],
};
TABLES['pk+key'] = [...TABLES.pk, 'CREATE INDEX ON audit_rows (tenant_id, mode, api_key_id, at)'];
TABLES['pk+key+hash'] = [...TABLES['pk+key'], 'CREATE INDEX ON audit_rows USING hash (resource_id) WHERE resource_id IS NOT NULL'];

for (const layout of LAYOUTS) if (!TABLES[layout]) throw new Error(`unknown layout ${layout}; one of ${Object.keys(TABLES).join(', ')}`);

await withBench('audit_rows', { WORKERS: 'off' }, async (bench) => {
  bench.migrate();
  const { tenantId, keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };
  const { db, ids } = await seedPatients(bench, PORT, headers, PATIENTS); // needs the import worker: an API of its own
  const randomId = () => ids[Math.floor(Math.random() * ids.length)];
  const apiKeyId = (await db.query('SELECT id FROM api_keys WHERE tenant_id = $1 AND mode = $2', [tenantId, 'live'])).rows[0].id;

  const { onCpu0, where } = useLayout('pinned');
  log(`layout pinned: ${where}; the writer with autocannon`);
  const target = { url, headers, paths: () => `/api/v1/patients/${randomId()}` };
  const results = [];
  for (const layout of LAYOUTS) {
    await db.query('DROP TABLE IF EXISTS audit_rows');
    for (const sql of TABLES[layout]) await db.query(sql);
    await db.query('CHECKPOINT');
    const api = bench.start('dist/main.js', { PORT: String(PORT), AUDIT_LOG_ENABLED: 'false', PGAPPNAME: 'bench-rows-api' }, [], onCpu0);
    await waitFor(`${url}/health/ready`);
    const rate = Math.round((await cannon({ ...target, duration: 5 })).rps); // JIT warm-up; the writer's rate
    const meter = cpuMeter(db, bench.database, { api: api.pid }, { api: 'bench-rows-api', writer: 'bench-rows-writer' });
    /** One measured run, with or without the writer COPYing rows alongside. */
    const measure = async (withWriter) => {
      const writer = withWriter
        ? fork(new URL('./audit-rows-writer.mjs', import.meta.url), [], {
            env: {
              ...process.env,
              DATABASE_URL: bench.databaseUrl,
              TENANT_ID: tenantId,
              API_KEY_ID: apiKeyId,
              RATE: String(rate),
              IDS: ids.join(','),
            },
          })
        : undefined;
      await cannon({ ...target, duration: 1.5 }); // the writer up to speed
      await meter.start();
      const r = await cannon({ ...target, duration: SECONDS });
      const cpu = await meter.stop(r.total);
      if (writer) await new Promise((resolve) => writer.once('exit', resolve).kill());
      return { rps: r.rps, cpu: cpu.api, pg: cpu['pg:api'], writerPg: cpu['pg:writer'], p99: r.p99 };
    };
    const costs = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const runs = {};
      for (const withWriter of round % 2 ? [true, false] : [false, true]) runs[withWriter] = await measure(withWriter);
      const [w, n] = [runs.true, runs.false];
      costs.push(1 - w.rps / n.rps);
      log(
        `${layout} round ${round}: with rows ${w.rps.toFixed(0)} req/s (API ${w.cpu.toFixed(0)} + PostgreSQL ${w.pg.toFixed(0)} µs/req, the rows ${w.writerPg.toFixed(1)} µs each, p99 ${w.p99} ms), ` +
          `without ${n.rps.toFixed(0)} req/s (${n.cpu.toFixed(0)} + ${n.pg.toFixed(0)}, p99 ${n.p99} ms): cost ${(costs.at(-1) * 100).toFixed(1)} %`,
      );
    }
    await bench.stop(api);
    const rows = (await db.query('SELECT count(*)::int AS n FROM audit_rows')).rows[0].n;
    results.push({ layout, rate, cost: median(costs), costs, rows });
  }
  for (const r of results) {
    console.log(
      `| ${r.layout} | ${r.rate} rows/s, ${r.rows} written | ${(r.cost * 100).toFixed(1)} % | ${r.costs.map((c) => `${(c * 100).toFixed(1)} %`).join(', ')} |`,
    );
  }
  await db.end();
});
