// SMS throughput: 1,000 live-mode messages through one worker and the Twilio transport, to a local server
// speaking Twilio's Messages API (form bodies, HTTP Basic auth, 201 with a message sid) on 127.0.0.1:41021.
// The built API runs without workers (PORT=41020, SMS_PROVIDER=twilio, TWILIO_API_BASE_URL at the fake)
// and queues `count` sends (20 at a time); then one dist/worker.js starts and the time is taken from its
// start (its start-up included) and from the first acceptance to the last, with the worker's CPU time per
// message meanwhile (less disturbed by a shared machine than the wall clock). Checks that every message
// reached the fake exactly once (by body) and every row ended `sent` with the fake's sid.
// Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379. Creates and drops
// its own database (bench/lib.mjs). Usage: node bench/sms.mjs [count=1000]
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMs, waitFor, withBench } from './lib.mjs';

const COUNT = Number(process.argv[2] ?? 1000);
const CONCURRENCY = 20;
const PORT = 41020;
const FAKE_PORT = 41021;
const SID = `AC${'b'.repeat(32)}`;
const TOKEN = 'bench-twilio-auth-token-0123456789';
const env = {
  PORT: String(PORT),
  SMS_PROVIDER: 'twilio',
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: TOKEN,
  TWILIO_FROM: '+15005550006',
  TWILIO_API_BASE_URL: `http://127.0.0.1:${FAKE_PORT}`,
};

await withBench('sms', env, async (bench) => {
  const received = new Map(); // body → times accepted
  let first = 0;
  let last = 0;
  const auth = `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;
  await bench.listen(
    createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        if (req.headers.authorization !== auth || !req.url?.endsWith(`/Accounts/${SID}/Messages.json`)) {
          res.writeHead(401, { 'content-type': 'application/json' }).end('{"code":20003,"status":401}');
          return;
        }
        const fields = new URLSearchParams(body);
        const text = fields.get('Body');
        received.set(text, (received.get(text) ?? 0) + 1);
        last = performance.now();
        first ||= last;
        const sid = `SM${randomBytes(16).toString('hex')}`;
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sid, status: 'queued', to: fields.get('To') }));
      });
    }),
    FAKE_PORT,
  );
  bench.migrate();
  const { keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };
  const base = `http://127.0.0.1:${PORT}/api/v1`;
  bench.start('dist/main.js', { WORKERS: 'off' });
  await waitFor(`http://127.0.0.1:${PORT}/health/ready`, 120_000);

  let next = 0;
  const queuedAt = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < COUNT) {
        const n = next++;
        const res = await fetch(`${base}/sms/send`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ to: `+1202555${String(n).padStart(4, '0')}`, body: `Bench message ${n}, see you soon` }),
        });
        if (res.status !== 202) throw new Error(`send ${n}: ${res.status} ${await res.text()}`);
      }
    }),
  );
  const queued = (performance.now() - queuedAt) / 1000;

  const started = performance.now();
  const worker = bench.start('dist/worker.js');
  // The worker's CPU from its first send to its last: what the machine's other load disturbs least.
  await waitFor(() => received.size > 0, 120_000, 'a first message');
  const cpuAtFirst = cpuMs(worker.pid);
  await waitFor(() => received.size >= COUNT, 120_000, `${COUNT} messages received`);
  const cpuPerMessage = (cpuMs(worker.pid) - cpuAtFirst) / (received.size - 1);
  await sleep(1000); // a duplicate would arrive meanwhile
  const db = await bench.sql();
  const statuses = (await db.query(`SELECT status, count(*)::int AS n FROM sms_messages GROUP BY status`)).rows;
  const withSid = (await db.query(`SELECT count(*)::int AS n FROM sms_messages WHERE provider_message_id LIKE 'SM%'`)).rows[0].n;
  await db.end();
  const duplicated = [...received.values()].filter((n) => n > 1).length;
  const total = (last - started) / 1000;
  const sending = (last - first) / 1000;
  console.log(
    `| ${COUNT} SMS | queued through the API in ${queued.toFixed(2)} s | one worker: start → last accepted **${total.toFixed(2)} s** (start-up included); first → last accepted ${sending.toFixed(2)} s, ${(COUNT / sending).toFixed(0)} messages/s, worker CPU ${cpuPerMessage.toFixed(2)} ms a message | received ${received.size} distinct, duplicated ${duplicated} | rows ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}, ${withSid} with a sid |`,
  );
});
