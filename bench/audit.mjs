// Audit-log cost on GET /patients/{id}: the built API with the audit log on, then off
// (AUDIT_LOG_ENABLED=false, a switch for this comparison only), alternating rounds, autocannon with 32
// connections. Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379.
// Creates and drops its own database. Usage: node bench/audit.mjs [seconds=10] [rounds=3]
import { cannon, log, median, waitFor, withBench } from './lib.mjs';

const SECONDS = Number(process.argv[2] ?? 10);
const ROUNDS = Number(process.argv[3] ?? 3);
const PORT = 41411;
const base = `http://127.0.0.1:${PORT}`;

await withBench('audit', { PORT: String(PORT), WORKERS: 'off' }, async (bench) => {
  bench.migrate();
  const { keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };

  /** Starts the API with the audit log on or off, measures GET /patients/{id}, stops it. */
  async function measure(audit, patientId) {
    const api = bench.start('dist/main.js', { AUDIT_LOG_ENABLED: String(audit) });
    try {
      await waitFor(`${base}/health/ready`);
      const target = { url: `${base}/api/v1/patients/${patientId}`, headers };
      await cannon({ ...target, duration: 2 });
      return await cannon({ ...target, duration: SECONDS });
    } finally {
      await bench.stop(api);
    }
  }

  const api = bench.start('dist/main.js');
  await waitFor(`${base}/health/ready`);
  const res = await fetch(`${base}/api/v1/patients`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }),
  });
  const patientId = (await res.json()).id;
  await bench.stop(api);

  const on = [];
  const off = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate the order, so that a machine getting busier does not favour one side.
    const order = round % 2 ? [true, false] : [false, true];
    for (const audit of order) (audit ? on : off).push(await measure(audit, patientId));
    log(`round ${round}: on ${on.at(-1).rps.toFixed(0)} req/s, off ${off.at(-1).rps.toFixed(0)} req/s (load ${on.at(-1).load.toFixed(1)})`);
  }
  const onRps = median(on.map((r) => r.rps));
  const offRps = median(off.map((r) => r.rps));
  console.log(
    `| GET /patients/{id} | audit on ${onRps.toFixed(0)} req/s (p99 ${median(on.map((r) => r.p99))} ms) | audit off ${offRps.toFixed(0)} req/s (p99 ${median(off.map((r) => r.p99))} ms) | cost ${((1 - onRps / offRps) * 100).toFixed(1)} % | errors ${[...on, ...off].reduce((a, r) => a + r.errors, 0)} |`,
  );
});
