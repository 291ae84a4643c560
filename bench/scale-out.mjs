// Throughput scaled out: GET /patients/{id} and POST /patients through two APIs behind PgBouncer (transaction
// mode) against one API connected to PostgreSQL directly, in alternating rounds within one run. Run through
// `bash .ci/scale-out --bench`, which starts the engines and the three APIs and passes their addresses;
// results go to docs/operations.md ("Scaling out").
//
// Environment (set by .ci/scale-out): SCALE_OUT_APIS (the two pooled APIs, comma-separated),
// SCALE_OUT_DIRECT_API, and the database and Redis variables the CLI needs to create the bench's tenant.
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { bulkImport, cannon, log, median, patientRows } from './lib.mjs';

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    patients: { type: 'string', default: '10000' },
  },
});
const SECONDS = Number(opts.seconds);
const ROUNDS = Number(opts.rounds);
const CONNECTIONS = 32;
const pooled = process.env.SCALE_OUT_APIS.split(',');
const direct = process.env.SCALE_OUT_DIRECT_API;

const created = JSON.parse(
  execFileSync(process.execPath, ['dist/cli.js', 'tenants:create', '--name', 'Scale-out bench'], { encoding: 'utf8' }),
);
const key = created.apiKeys.find((k) => k.mode === 'live').key;
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

const { job, ms } = await bulkImport(direct, headers, patientRows(Number(opts.patients)));
log(`seeded ${job.created} patients in ${(ms / 1000).toFixed(1)} s`);
const ids = [];
for (let cursor; ;) {
  const page = await fetch(`${direct}/api/v1/patients?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers }).then((r) => r.json());
  ids.push(...page.patients.map((p) => p.id));
  cursor = page.nextCursor;
  if (!cursor || ids.length >= 2000) break;
}
const randomId = () => ids[Math.floor(Math.random() * ids.length)];
const body = JSON.stringify({ firstName: 'Bench', lastName: 'Create', email: 'bench@example.com', phone: '+14155550100' });
const cases = [
  { name: 'GET /patients/{id}', method: 'GET', paths: () => `/api/v1/patients/${randomId()}` },
  { name: 'POST /patients', method: 'POST', path: '/api/v1/patients', body },
];

/** One timed run over `bases`, the connections split between them; their req/s summed. */
async function run(c, bases, duration) {
  const each = await Promise.all(
    bases.map((base) =>
      cannon({
        url: `${base}${c.path ?? ''}`,
        method: c.method,
        headers,
        body: c.body,
        paths: c.paths,
        connections: CONNECTIONS / bases.length,
        duration,
      }),
    ),
  );
  return {
    rps: each.reduce((sum, r) => sum + r.rps, 0),
    p99: Math.max(...each.map((r) => r.p99)),
    errors: each.reduce((sum, r) => sum + r.errors, 0),
  };
}

const setups = { direct: [direct], pooled };
const rows = [];
for (const c of cases) {
  const got = { direct: [], pooled: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const setup of round % 2 ? ['pooled', 'direct'] : ['direct', 'pooled']) {
      await run(c, setups[setup], 2); // warm-up
      const r = await run(c, setups[setup], SECONDS);
      got[setup].push(r);
      log(`${c.name} ${setup.padEnd(6)}: ${r.rps.toFixed(0)} req/s, p99 ${r.p99} ms, errors ${r.errors}, load ${loadavg()[0].toFixed(2)}`);
    }
  }
  rows.push({ c, got });
}

const cell = (rs) => `${median(rs.map((r) => r.rps)).toFixed(0)} (p99 ${median(rs.map((r) => r.p99))} ms)`;
console.log(
  [
    `${cpus().length} CPUs, autocannon ${CONNECTIONS} connections in all (split between the two pooled APIs), ${SECONDS} s per run after a 2 s warm-up, ${ROUNDS} alternating rounds, ${job.created} patients:`,
    '',
    '| Endpoint | one API, direct: req/s | two APIs via PgBouncer: req/s | ratio | errors |',
    '|---|---:|---:|---:|---:|',
    ...rows.map(({ c, got }) => {
      const ratio = median(got.pooled.map((r) => r.rps)) / median(got.direct.map((r) => r.rps));
      const errors = [...got.direct, ...got.pooled].reduce((n, r) => n + r.errors, 0);
      return `| ${c.name} | ${cell(got.direct)} | ${cell(got.pooled)} | ${ratio.toFixed(2)} | ${errors} |`;
    }),
  ].join('\n'),
);
