// audit-rows.mjs's writer: COPYs audit rows for GET /patients/{id} into audit_rows at RATE rows a second,
// as the API's writer does: one COPY a second (AUDIT_FLUSH_INTERVAL_MS), at most 10,000 rows each (its
// FLUSH_AT), encoded by the API's AuditCopyBuffer, until it is killed.
// Inherits the bench script's CPUs (not CPU 0). Environment: DATABASE_URL, TENANT_ID, API_KEY_ID, RATE,
// IDS (the patients' ids, comma-separated).
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import copyBuffer from '../dist/modules/audit/audit-copy-buffer.js';

const { AuditCopyBuffer, AUDIT_COPY_SQL, copyData } = copyBuffer;
const BATCH = Math.min(10_000, Number(process.env.RATE));
const ids = process.env.IDS.split(',');
const client = new pg.Client({ connectionString: process.env.DATABASE_URL, application_name: 'bench-rows-writer' });
await client.connect();
const buffer = new AuditCopyBuffer();
const sql = AUDIT_COPY_SQL.replace('audit_log', 'audit_rows');
let written = 0;
let busy = false;

setInterval(
  async () => {
    if (busy) return; // the database is behind: skip a tick rather than queue COPYs
    busy = true;
    for (let i = 0; i < BATCH; i++, written++) {
      buffer.append({
        tenantId: process.env.TENANT_ID,
        mode: 'live',
        apiKeyId: process.env.API_KEY_ID,
        at: Date.now(),
        action: 'patient.read',
        resourceType: 'patient',
        resourceId: ids[Math.floor(Math.random() * ids.length)],
        status: 200,
        requestId: `req-${process.pid}-${written.toString(36)}`,
        ip: '127.0.0.1',
      });
    }
    try {
      await pipeline(Readable.from(copyData(buffer.take())), client.query(copyFrom(sql)));
    } catch (err) {
      process.stderr.write(`audit-rows writer: a COPY failed: ${err.message}\n`); // the run's row count shows it
    } finally {
      busy = false;
    }
  },
  1000 / (Number(process.env.RATE) / BATCH),
);
