import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AUDIT_COPY_SQL,
  AUDIT_PATIENTS_COPY_SQL,
  AuditCopyBuffer,
  copyData,
  patientCopyData,
} from '../../src/modules/audit/audit-copy-buffer';
import { uuidv7 } from '../../src/common/ids';
import { clock } from '../../src/common/time/clock';
import { AppCrypto } from '../../src/common/crypto/app-crypto';
import { runMigrations } from '../../src/database/database-options';
import { migrationsBefore, scratchDatabase } from '../helpers/migrations';

/** The first migration of the partitioned audit log: everything before it is the old schema. */
const PARTITIONS = 1764070000000;

/** `YYYY_MM` of the UTC month `months` away from the clock's. */
function monthOf(months: number): { start: Date; suffix: string } {
  const now = clock.now();
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 1));
  return { start, suffix: `${start.getUTCFullYear()}_${String(start.getUTCMonth() + 1).padStart(2, '0')}` };
}

/**
 * The conversion of an existing, populated audit_log into the partitioned one, on a database of its own
 * migrated to the schema before it: no entry lost or changed, each in its month's partition, the key,
 * indexes and checks in place, the single-patient answers filled into the access log, and the writer's
 * binary COPY still accepted.
 */
describe('Migration to a partitioned audit log', () => {
  // No app, so not useApp: the migration itself runs here, on a raw database held at the schema before it.
  let scratch: Awaited<ReturnType<typeof scratchDatabase>>;
  let url: string;
  let db: Client;

  beforeAll(async () => {
    scratch = await scratchDatabase('partitions');
    url = scratch.url;
    await runMigrations(url, new AppCrypto(process.env.APP_SECRET!), await migrationsBefore(PARTITIONS));
    db = new Client({ connectionString: url });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await scratch?.drop();
  });

  it('moves every entry into the partition of its month, keeps key, indexes and checks, and fills the access log', async () => {
    // Under the old schema: 7 months from 30 back to the current one, two tenants, both modes, keyless rows, NULLs.
    const months = [-30, -13, -12, -2, -1, 0].map(monthOf);
    const tenants = [uuidv7(), uuidv7()];
    const patient = uuidv7();
    const perMonth = 500;
    for (const [i, month] of months.entries()) {
      await db.query(
        `INSERT INTO audit_log (id, tenant_id, mode, at, api_key_id, action, resource_type, resource_id, status, request_id, ip)
         SELECT gen_random_uuid(), ($2::uuid[])[1 + n % 2], CASE WHEN n % 3 = 0 THEN 'live' ELSE 'test' END,
                $1::timestamptz + ((n * 7) % 648) * interval '1 hour' + interval '1 millisecond' * n,
                CASE WHEN n % 7 = 0 THEN NULL ELSE gen_random_uuid() END,
                CASE WHEN n % 5 = 0 THEN 'patient.list' ELSE 'patient.read' END, 'patient',
                CASE WHEN n % 5 = 0 THEN NULL WHEN n % 4 = 0 THEN $4 ELSE gen_random_uuid()::text END,
                CASE WHEN n % 11 = 0 THEN 404 ELSE 200 END, 'req-' || $3 || '-' || n, CASE WHEN n % 2 = 0 THEN '203.0.113.' || n % 250 END
           FROM generate_series(1, $5) AS n`,
        [month.start, tenants, i, patient, perMonth],
      );
    }
    // The last instant of a month and the first of the next: the bounds are UTC instants.
    const edge = monthOf(-1).start;
    await db.query(
      `INSERT INTO audit_log (id, tenant_id, mode, at, api_key_id, action, resource_type, resource_id, status, request_id, ip)
       VALUES (gen_random_uuid(), $1, 'test', $2::timestamptz - interval '1 millisecond', NULL, 'patient.read', 'patient', NULL, 200, 'edge-before', NULL),
              (gen_random_uuid(), $1, 'test', $2::timestamptz, NULL, 'patient.read', 'patient', NULL, 200, 'edge-at', NULL)`,
      [tenants[0], edge],
    );
    const snapshot = `SELECT count(*)::int AS n, md5(string_agg(concat_ws('|', id, tenant_id, mode, at, api_key_id, action,
                        resource_type, resource_id, status, request_id, ip), ',' ORDER BY id)) AS digest FROM audit_log`;
    const [before] = (await db.query<{ n: number; digest: string }>(snapshot)).rows;
    expect(before.n).toBe(months.length * perMonth + 2);
    const { rows: patientReads } = await db.query<{ id: string }>(
      `SELECT id FROM audit_log WHERE resource_id = $1 AND status = 200 ORDER BY id`,
      [patient],
    );
    expect(patientReads.length).toBeGreaterThan(10);

    await runMigrations(url, new AppCrypto(process.env.APP_SECRET!));

    expect((await db.query(snapshot)).rows[0]).toEqual(before);
    const { rows: kinds } = await db.query(`SELECT relkind FROM pg_class WHERE relname = 'audit_log'`);
    expect(kinds).toEqual([{ relkind: 'p' }]);
    // Each entry sits in the partition named for its UTC month; nothing fell into the default one.
    const { rows: misplaced } = await db.query(
      `SELECT tableoid::regclass::text AS partition, count(*)::int AS n FROM audit_log
        WHERE tableoid::regclass::text <> 'audit_log_p' || to_char(at AT TIME ZONE 'UTC', 'YYYY_MM') GROUP BY 1`,
    );
    expect(misplaced).toEqual([]);
    const { rows: perPartition } = await db.query<{ partition: string; n: number }>(
      `SELECT tableoid::regclass::text AS partition, count(*)::int AS n FROM audit_log GROUP BY 1 ORDER BY 1`,
    );
    expect(perPartition.map((r) => r.partition)).toEqual(expect.arrayContaining(months.map((m) => `audit_log_p${m.suffix}`)));
    expect(perPartition.find((r) => r.partition === `audit_log_p${monthOf(-2).suffix}`)!.n).toBe(perMonth + 1);
    expect(perPartition.find((r) => r.partition === `audit_log_p${monthOf(-1).suffix}`)!.n).toBe(perMonth + 1);
    const { rows: partitions } = await db.query<{ relname: string }>(
      `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'audit_log'::regclass ORDER BY 1`,
    );
    const names = partitions.map((p) => p.relname);
    // Months ahead exist already, and a default partition catches anything outside them.
    for (const ahead of [1, 2, 3]) expect(names).toContain(`audit_log_p${monthOf(ahead).suffix}`);
    expect(names).toContain('audit_log_default');
    expect(names).toContain(`audit_log_p${monthOf(-20).suffix}`); // months between the oldest and now, even empty

    const { rows: key } = await db.query(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'audit_log'::regclass AND contype = 'p'`,
    );
    expect(key).toEqual([{ def: 'PRIMARY KEY (tenant_id, mode, at, id)' }]);
    const { rows: indexes } = await db.query<{ indexname: string }>(
      `SELECT indexname FROM pg_indexes WHERE tablename = 'audit_log' ORDER BY 1`,
    );
    // The indexes of every later migration too (the filters' indexes in page order).
    expect(indexes.map((i) => i.indexname)).toEqual([
      'IDX_AUDIT_LOG_TENANT_MODE_ACTION',
      'IDX_AUDIT_LOG_TENANT_MODE_KEY',
      'IDX_AUDIT_LOG_TENANT_MODE_RESOURCE',
      'audit_log_pkey',
    ]);
    await expect(
      db.query(
        `INSERT INTO audit_log (id, tenant_id, mode, at, action, resource_type, status, request_id) VALUES ($1, $2, 'prod', now(), 'x', 'x', 200, 'r')`,
        [uuidv7(), tenants[0]],
      ),
    ).rejects.toThrow(/audit_log_mode_check/);
    expect((await db.query<{ t: string | null }>(`SELECT to_regclass('audit_log_unpartitioned') AS t`)).rows[0].t).toBeNull();

    // Single-patient answers recorded before the access log existed are in it.
    const { rows: filled } = await db.query<{ audit_id: string }>(
      `SELECT audit_id
 FROM audit_log_patients WHERE patient_id = $1 ORDER BY audit_id`,
      [patient],
    );
    expect(filled.map((r) => r.audit_id)).toEqual(patientReads.map((r) => r.id));
    const { rows: misfiled } = await db.query(
      `SELECT count(*)::int AS n FROM audit_log_patients WHERE tableoid::regclass::text <> 'audit_log_patients_p' || to_char(at AT TIME ZONE 'UTC', 'YYYY_MM')`,
    );
    expect(misfiled).toEqual([{ n: 0 }]);

    // The audit writer's binary COPYs (an entry and the patients its answer carried) load into the new tables.
    const buffer = new AuditCopyBuffer();
    const at = clock.nowMs();
    buffer.append({
      tenantId: tenants[0],
      mode: 'live',
      apiKeyId: null,
      at,
      action: 'patient.list',
      resourceType: 'patient',
      resourceId: null,
      status: 200,
      requestId: 'after-migration',
      ip: null,
      patientIds: [patient],
    });
    const chunks = buffer.take();
    await pipeline(Readable.from(copyData(chunks)), db.query(copyFrom(AUDIT_COPY_SQL)));
    await pipeline(Readable.from(patientCopyData(chunks)!), db.query(copyFrom(AUDIT_PATIENTS_COPY_SQL)));
    const { rows: copied } = await db.query(
      `SELECT a.tableoid::regclass::text AS partition FROM audit_log a JOIN audit_log_patients p ON p.audit_id = a.id AND p.at = a.at
        WHERE a.request_id = 'after-migration' AND p.patient_id = $1`,
      [patient],
    );
    expect(copied).toEqual([{ partition: `audit_log_p${monthOf(0).suffix}` }]);
  });
});
