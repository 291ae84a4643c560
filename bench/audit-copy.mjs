// The API's own CPU for loading audit entries, by entries per COPY: this process encodes GET-like entries
// with the API's AuditCopyBuffer and loads them with its AuditLoader (a connection of its own, one COPY per
// batch) into a migrated audit_log, and reports this process's CPU time (user + system, all threads) per
// entry for the encoding and for the loading apart. PostgreSQL's own work is not counted: this is what a
// COPY costs the API, whose CPU is what GET /patients/{id} throughput is bound by (audit.mjs, `apart`).
// Needs `npm run build` first and PostgreSQL on 127.0.0.1:5432; creates and drops its own database.
// Usage: node bench/audit-copy.mjs [batches=100,500,2000,10000] [entries=100000] [rounds=3]
import copyBuffer from '../dist/modules/audit/audit-copy-buffer.js';
import loaderModule from '../dist/modules/audit/audit.loader.js';
import dependencyModule from '../dist/common/observability/dependency-status.js';
import { log, median, withBench } from './lib.mjs';

const { AuditCopyBuffer, copyData } = copyBuffer;
const { AuditLoader } = loaderModule;
const BATCHES = (process.argv[2] ?? '100,500,2000,10000').split(',').map(Number);
const ENTRIES = Number(process.argv[3] ?? 100_000);
const ROUNDS = Number(process.argv[4] ?? 3);
const PATIENTS = 2_000;

const cpuMicros = (since) => {
  const { user, system } = process.cpuUsage(since);
  return user + system;
};

await withBench('audit_copy', {}, async (bench) => {
  bench.migrate();
  const { tenantId } = bench.createTenant();
  const patientIds = Array.from({ length: PATIENTS }, () => crypto.randomUUID());
  const entry = () => ({
    tenantId,
    mode: 'live',
    at: Date.now(),
    apiKeyId: '0193a5b2-7c1d-7e4f-8a9b-0000000000aa',
    action: 'patient.read',
    resourceType: 'patient',
    resourceId: patientIds[Math.floor(Math.random() * PATIENTS)],
    status: 200,
    requestId: crypto.randomUUID(),
    ip: '127.0.0.1',
  });
  const loader = new AuditLoader({ databaseUrl: bench.databaseUrl }, new dependencyModule.DependencyStatus());
  const buffer = new AuditCopyBuffer();
  const rows = [];
  for (const batch of BATCHES) {
    const rounds = [];
    for (let round = 0; round < ROUNDS + 1; round++) {
      let encode = 0;
      let load = 0;
      const started = Date.now();
      for (let written = 0; written < ENTRIES; written += batch) {
        const records = Array.from({ length: batch }, entry); // built outside the measured encoding
        const encoding = process.cpuUsage();
        for (const record of records) buffer.append(record);
        const chunks = buffer.take();
        encode += cpuMicros(encoding);
        const loading = process.cpuUsage();
        await loader.copy(copyData(chunks));
        load += cpuMicros(loading);
      }
      if (round > 0) rounds.push({ encode: encode / ENTRIES, load: load / ENTRIES, ms: Date.now() - started }); // round 0 warms up
    }
    const load = median(rounds.map((r) => r.load));
    log(`${batch} per COPY: load ${rounds.map((r) => r.load.toFixed(2)).join(', ')} µs/entry`);
    rows.push(
      `| ${batch} | ${median(rounds.map((r) => r.encode)).toFixed(2)} | **${load.toFixed(2)}** (${rounds.map((r) => r.load.toFixed(2)).join(', ')}) | ${((load * batch) / 1000).toFixed(2)} | ${median(rounds.map((r) => r.ms))} |`,
    );
  }
  await loader.close();
  console.log(`| entries per COPY | encode, µs/entry | load, µs/entry (median; rounds) | load per COPY, ms | wall ms per ${ENTRIES} |`);
  console.log('| ---: | ---: | ---: | ---: | ---: |');
  for (const row of rows) console.log(row);
});
