// Webhook throughput: 1,000 deliveries to a local receiver. Starts the built API (API, relay and delivery
// workers in one process) with WEBHOOK_ALLOW_PRIVATE_URLS=true, registers an endpoint on a loopback
// receiver, bulk-imports 1,000 patients (1,000 patient.created events) and times from the import's
// completion to the 1,000th delivery received, checking each signature and that no event came twice.
// Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379. Creates and drops
// its own database (set up by bench/lib.mjs). Usage: node bench/webhooks.mjs [deliveries=1000]
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { bulkImport, waitFor, withBench } from './lib.mjs';

const COUNT = Number(process.argv[2] ?? 1000);
const PORT = 41312; // the platform range of the shared machine (41300-41399)
const RECEIVER_PORT = 41313;

await withBench('webhooks', { PORT: String(PORT), WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, async (bench) => {
  const received = [];
  await bench.listen(
    createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        received.push({ at: performance.now(), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200).end('ok');
      });
    }),
    RECEIVER_PORT,
  );
  bench.migrate();
  const { keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };
  const origin = `http://127.0.0.1:${PORT}`;
  bench.start('dist/main.js');
  await waitFor(`${origin}/health/ready`, 60_000);

  const hook = await (
    await fetch(`${origin}/api/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `http://127.0.0.1:${RECEIVER_PORT}/hook`, events: ['patient.created'] }),
    })
  ).json();
  const rows = Array.from({ length: COUNT }, (_, i) => ({ firstName: `Bench${i}`, lastName: 'Patient', externalId: `bench-${i}` }));
  const started = performance.now();
  const { job } = await bulkImport(origin, headers, rows);
  if (job.status !== 'completed') throw new Error(`import ended ${job.status}: ${JSON.stringify(job)}`);
  const imported = performance.now();
  await waitFor(() => received.length >= COUNT, 60_000, `${COUNT} deliveries`);
  const done = Math.max(imported, received[COUNT - 1].at); // when the COUNT-th delivery arrived
  await sleep(1000); // a duplicate would arrive meanwhile

  const verifier = new Webhook(hook.secret);
  const ids = new Set(received.map((r) => r.headers['webhook-id']));
  const bad = received.filter((r) => {
    try {
      verifier.verify(r.body, r.headers);
      return false;
    } catch {
      return true;
    }
  }).length;
  console.log(
    `| ${COUNT} deliveries | import ${((imported - started) / 1000).toFixed(2)} s | import done → last delivery ${((done - imported) / 1000).toFixed(2)} s | POST → last delivery ${((done - started) / 1000).toFixed(2)} s | received ${received.length}, distinct ${ids.size}, bad signatures ${bad} |`,
  );
});
