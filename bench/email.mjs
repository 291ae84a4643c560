// Email throughput: 1,000 sends through the queue to a local SMTP receiver. Starts a receiver (the
// `smtp-server` package) on 127.0.0.1:41011 and the built API with its workers in one process
// (PORT=41010, SMTP_URL at the receiver), creates a template, POSTs `count` sends (20 at a time) and
// times from the first POST to the last message received; samples the API process's RSS meanwhile and
// checks that every message arrived exactly once (by Message-ID) and that every row ended `sent`.
// Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379. Creates and
// drops its own database (set up by bench/lib.mjs). Usage: node bench/email.mjs [count=1000] [--split]
import { setTimeout as sleep } from 'node:timers/promises';
import { SMTPServer } from 'smtp-server';
import { rssMiB, sampleRss, waitFor, withBench } from './lib.mjs';

const COUNT = Number(process.argv[2] ?? 1000);
// --split: the API runs no workers; a separate dist/worker.js starts once every send is queued, so the
// drain (queue → SMTP) is timed apart from the API's intake.
const SPLIT = process.argv.includes('--split');
const CONCURRENCY = 20;
const PORT = 41010;
const SMTP_PORT = 41011;
const env = { PORT: String(PORT), SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}`, EMAIL_FROM: 'Bench Clinic <bench@clinic.test>' };

await withBench('email', env, async (bench) => {
  const received = new Map(); // Message-ID → times received
  let last = 0;
  await bench.listen(
    new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, _session, callback) {
        let head = '';
        stream.on('data', (chunk) => {
          if (head.length < 4096) head += chunk.toString('utf8');
        });
        stream.on('end', () => {
          const id = /^message-id:\s*(\S+)/im.exec(head)?.[1] ?? '?';
          received.set(id, (received.get(id) ?? 0) + 1);
          last = performance.now();
          callback(null, 'Ok: queued');
        });
      },
    }),
    SMTP_PORT,
  );
  bench.migrate();
  const { keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };
  const base = `http://127.0.0.1:${PORT}/api/v1`;
  const api = bench.start('dist/main.js', SPLIT ? { WORKERS: 'off' } : {});
  await waitFor(`http://127.0.0.1:${PORT}/health/ready`, 120_000);
  const rssIdle = rssMiB(api.pid);

  const template = await (
    await fetch(`${base}/emails/templates`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'Bench',
        subject: 'Message {{n}}',
        htmlContent: '<p>Hello {{name}}, this is message {{n}}.</p>',
        textContent: 'Hello {{name}}, this is message {{n}}.',
      }),
    })
  ).json();

  const rss = sampleRss({ api: api.pid });
  const ids = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < COUNT) {
        const n = next++;
        const res = await fetch(`${base}/emails/send`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            to: `bench-${n}@example.test`,
            templateId: template.id,
            templateVariables: { n, name: `<Patient ${n}>` },
          }),
        });
        if (res.status !== 202) throw new Error(`send ${n}: ${res.status} ${await res.text()}`);
        ids.push((await res.json()).messageId);
      }
    }),
  );
  const accepted = performance.now();
  if (SPLIT) bench.start('dist/worker.js');
  await waitFor(() => received.size >= COUNT, 120_000, `${COUNT} messages received`);
  const done = last;
  rss.stop();
  const rssPeak = Math.max(rssIdle, rss.peak.api);
  await sleep(1000); // a duplicate would arrive meanwhile

  const duplicated = [...received.values()].filter((n) => n > 1).length;
  const mine = ids.filter((id) => received.has(`<${id}@clinic.test>`)).length;
  const db = await bench.sql();
  const statuses = (await db.query(`SELECT status, count(*)::int AS n FROM email_messages GROUP BY status`)).rows;
  await db.end();
  const seconds = (done - started) / 1000;
  const drain = SPLIT
    ? ` | worker start → last received ${((done - accepted) / 1000).toFixed(2)} s, ${(COUNT / ((done - accepted) / 1000)).toFixed(0)} messages/s (includes its start-up)`
    : '';
  console.log(
    `| ${COUNT} sends${SPLIT ? ' (split)' : ''}${drain} | POSTs accepted in ${((accepted - started) / 1000).toFixed(2)} s | first POST → last message received ${seconds.toFixed(2)} s | ${(COUNT / seconds).toFixed(0)} messages/s | API RSS idle ${rssIdle.toFixed(0)} MiB, peak ${rssPeak.toFixed(0)} MiB | received ${received.size} distinct (${mine} of ours), duplicated ${duplicated} | rows ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')} |`,
  );
});
