// Instructions per request, counted by valgrind's callgrind: unlike req/s and CPU time, the count does not
// move with the machine's other load (other builds and tests on the same two cores). Seeds 10,000
// patients, then runs the API (WORKERS=off) and the floor (bench/bare-server.mjs) one after the other
// under callgrind with instrumentation off, warms each up (the JIT), counts the instructions of the next
// `--requests` requests of each case (8 connections) and prints instructions per request and the floor's
// share. The server process only: PostgreSQL's work is not in the count. Needs `npm run build` and
// valgrind. Usage: node bench/instructions.mjs [--requests 1500] [--warmup 3000] [--cases get,post,list]
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { bulkImport, log, patientRows, waitFor, withBench } from './lib.mjs';

const { values: opts } = parseArgs({
  options: {
    requests: { type: 'string', default: '1500' },
    warmup: { type: 'string', default: '3000' },
    cases: { type: 'string', default: 'get,post,list' },
  },
});
const PORT = 41421;
const OUT_DIR = `/tmp/pm-callgrind-${process.pid}`;

/** Runs callgrind_control on the server while nudging it with cheap requests until the command is taken. */
async function control(pid, command) {
  const done = new Promise((resolve, reject) =>
    execFile('callgrind_control', [...command, String(pid)], (err) => (err ? reject(err) : resolve())),
  );
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => undefined);
  while (!finished) {
    await fetch(`http://127.0.0.1:${PORT}/nudge`).catch(() => undefined);
    await sleep(50);
  }
  await done;
}

const run = (opts) =>
  new Promise((resolve, reject) => autocannon({ connections: 8, ...opts }, (err, r) => (err ? reject(err) : resolve(r))));

await withBench('instr', { WORKERS: 'off' }, async (bench) => {
  bench.migrate();
  const { keys } = bench.createTenant();
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };
  const base = `http://127.0.0.1:${PORT}`;

  const seeder = bench.start('dist/main.js', { PORT: String(PORT), WORKERS: 'on' });
  await waitFor(`${base}/health/ready`);
  const { job } = await bulkImport(base, headers, patientRows(10_000));
  log(`seeded: ${job.created} patients`);
  await bench.stop(seeder);
  const db = await bench.sql();
  await db.query('VACUUM (ANALYZE) patients');
  const ids = (await db.query('SELECT id FROM patients')).rows.map((r) => r.id);
  await db.end();

  const body = JSON.stringify({
    firstName: 'Bench',
    lastName: 'Create',
    email: 'bench@example.com',
    phone: '+14155550100',
    tags: ['bench'],
  });
  const cases = {
    get: { method: 'GET', path: '/api/v1/patients/x', random: true },
    post: { method: 'POST', path: '/api/v1/patients', body },
    list: { method: 'GET', path: '/api/v1/patients?limit=50' },
  };
  const chosen = opts.cases.split(',');
  const results = {};
  for (const [server, script] of [
    ['api', 'dist/main.js'],
    ['floor', 'bench/bare-server.mjs'],
  ]) {
    rmSync(OUT_DIR, { recursive: true, force: true });
    execFileSync('mkdir', ['-p', OUT_DIR]);
    const child = bench.start(
      script,
      { PORT: String(PORT) },
      [],
      ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${OUT_DIR}/cg.out`],
    );
    await waitFor(server === 'api' ? `${base}/health/ready` : `${base}/api/v1/patients`, 600_000);
    for (const name of chosen) {
      const c = cases[name];
      const target = {
        url: `${base}${c.path}`,
        method: c.method,
        headers,
        body: c.body,
        requests: c.random
          ? [{ setupRequest: (req) => ({ ...req, path: `/api/v1/patients/${ids[Math.floor(Math.random() * ids.length)]}` }) }]
          : undefined,
      };
      await run({ ...target, amount: Number(opts.warmup) });
      // The commands reach the process at its next scheduling point; while it has nothing to do, a trickle
      // of cheap requests (a 404, about 0.01% of the measured run) gets it there.
      await control(child.pid, ['-i', 'on']);
      await control(child.pid, ['-z']);
      const r = await run({ ...target, amount: Number(opts.requests) });
      const before = new Set(readdirSync(OUT_DIR));
      await control(child.pid, ['-d']);
      let dump;
      for (let waited = 0; !dump && waited < 60_000; waited += 200) {
        await sleep(200);
        dump = readdirSync(OUT_DIR).find((f) => !before.has(f) && f !== 'cg.out');
      }
      await sleep(500); // valgrind finishes writing it
      await control(child.pid, ['-i', 'off']);
      const summary = /^(?:summary|totals):\s+(\d+)/m.exec(readFileSync(`${OUT_DIR}/${dump}`, 'utf8'));
      const perRequest = Number(summary[1]) / r.requests.total;
      results[`${name}:${server}`] = perRequest;
      log(
        `${name} ${server}: ${(perRequest / 1000).toFixed(0)}k instructions per request (${r.requests.total} requests, ${r.non2xx} non-2xx)`,
      );
    }
    await bench.stop(child);
  }
  rmSync(OUT_DIR, { recursive: true, force: true });
  const lines = ['| Endpoint | API instructions/request | floor | API ÷ floor |', '|---|---:|---:|---:|'];
  for (const name of chosen) {
    const api = results[`${name}:api`];
    const floor = results[`${name}:floor`];
    lines.push(`| ${name} | ${(api / 1000).toFixed(0)}k | ${(floor / 1000).toFixed(0)}k | ${(api / floor).toFixed(2)} |`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
});
