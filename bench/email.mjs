// Email throughput: 1,000 sends through the queue to a local SMTP receiver. Starts a receiver (the
// `smtp-server` package) on 127.0.0.1:41011 and the built API with its workers in one process
// (PORT=41010, SMTP_URL at the receiver), creates a template, POSTs `count` sends (20 at a time) and
// times from the first POST to the last message received; samples the API process's RSS meanwhile and
// checks that every message arrived exactly once (by Message-ID) and that every row ended `sent`.
// Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379. Creates and
// drops its own database. Usage: node bench/email.mjs [count=1000]
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';

const COUNT = Number(process.argv[2] ?? 1000);
// --split: the API runs no workers; a separate dist/worker.js starts once every send is queued, so the
// drain (queue → SMTP) is timed apart from the API's intake.
const SPLIT = process.argv.includes('--split');
const CONCURRENCY = 20;
const ADMIN_URL = process.env.BENCH_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const run = Date.now().toString(36);
const database = `pm_bench_email_${run}`;
const url = new URL(ADMIN_URL);
url.pathname = `/${database}`;
const PORT = 41010;
const SMTP_PORT = 41011;
const env = {
  ...process.env,
  DATABASE_URL: url.toString(),
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  REDIS_PREFIX: `pmbench:${run}`,
  HOST: '127.0.0.1',
  PORT: String(PORT),
  LOG_LEVEL: 'warn',
  MIGRATIONS_RUN: 'false',
  SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}`,
  EMAIL_FROM: 'Bench Clinic <bench@clinic.test>',
  ...Object.fromEntries(['TEST', 'LIVE', 'IP'].flatMap((m) => ['SECOND', 'HOUR', 'DAY'].map((w) => [`RATE_LIMIT_${m}_PER_${w}`, '0']))),
};
const log = (line) => process.stderr.write(`${line}\n`);

async function waitFor(check, what, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await sleep(20);
  }
}

/** The resident set size of a process, in MiB (Linux). */
function rssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line)[1]) / 1024;
}

async function main() {
  const received = new Map(); // Message-ID → times received
  let last = 0;
  const server = new SMTPServer({
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
  });
  await new Promise((resolve) => server.listen(SMTP_PORT, '127.0.0.1', resolve));
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  let api;
  let worker;
  try {
    execFileSync(process.execPath, ['dist/cli.js', 'migrations:run'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    const created = JSON.parse(
      execFileSync(process.execPath, ['dist/cli.js', 'tenants:create', '--name', 'Bench Clinic'], { env }).toString(),
    );
    const key = created.apiKeys.find((k) => k.mode === 'live').key;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const base = `http://127.0.0.1:${PORT}/api/v1`;
    api = spawn(process.execPath, ['dist/main.js'], {
      env: SPLIT ? { ...env, WORKERS: 'off' } : env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await waitFor(async () => (await fetch(`http://127.0.0.1:${PORT}/health/ready`)).ok, 'API start');
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

    let rssPeak = rssIdle;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(api.pid))), 100);
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
    if (SPLIT) worker = spawn(process.execPath, ['dist/worker.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    await waitFor(() => received.size >= COUNT, `${COUNT} messages received`);
    const done = last;
    clearInterval(sampler);
    await sleep(1000); // a duplicate would arrive meanwhile

    const duplicated = [...received.values()].filter((n) => n > 1).length;
    const mine = ids.filter((id) => received.has(`<${id}@clinic.test>`)).length;
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    const statuses = (await db.query(`SELECT status, count(*)::int AS n FROM email_messages GROUP BY status`)).rows;
    await db.end();
    const seconds = (done - started) / 1000;
    const drain = SPLIT
      ? ` | worker start → last received ${((done - accepted) / 1000).toFixed(2)} s, ${(COUNT / ((done - accepted) / 1000)).toFixed(0)} messages/s (includes its start-up)`
      : '';
    console.log(
      `| ${COUNT} sends${SPLIT ? ' (split)' : ''}${drain} | POSTs accepted in ${((accepted - started) / 1000).toFixed(2)} s | first POST → last message received ${seconds.toFixed(2)} s | ${(COUNT / seconds).toFixed(0)} messages/s | API RSS idle ${rssIdle.toFixed(0)} MiB, peak ${rssPeak.toFixed(0)} MiB | received ${received.size} distinct (${mine} of ours), duplicated ${duplicated} | rows ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')} |`,
    );
  } finally {
    worker?.kill('SIGTERM');
    if (worker) await new Promise((resolve) => worker.once('exit', resolve));
    api?.kill('SIGTERM');
    if (api) await new Promise((resolve) => api.once('exit', resolve));
    server.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((err) => {
  log(err.stack ?? String(err));
  process.exit(1);
});
