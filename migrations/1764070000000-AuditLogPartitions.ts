import { MigrationInterface, QueryRunner } from 'typeorm';

/** Months created ahead of the current one; the workers keep the same margin afterwards (AuditPartitions). */
const MONTHS_AHEAD = 3;

/** audit_log's columns, as they were and stay; the check is named, as an unnamed one would be named after the old table's. */
const COLUMNS = `
        id uuid NOT NULL,
        tenant_id uuid NOT NULL,
        mode varchar(4) NOT NULL CONSTRAINT audit_log_mode_check CHECK (mode IN ('test', 'live')),
        at timestamptz(3) NOT NULL,
        api_key_id uuid,
        action varchar(64) NOT NULL,
        resource_type varchar(32) NOT NULL,
        resource_id varchar(255),
        status smallint NOT NULL,
        request_id varchar(128) NOT NULL,
        ip varchar(64)`;

/**
 * `audit_log` becomes a table partitioned by month on `at`, so that retention drops whole months
 * (docs/data-retention.md) instead of deleting rows one by one, and a month's indexes stay the size of a
 * month. The primary key already held the partition key: (tenant_id, mode, at, id).
 *
 * The old table is renamed, a partitioned table with the same columns, checks, key and index names takes
 * its name, one partition per month from the oldest entry's through MONTHS_AHEAD past the current one
 * (named audit_log_pYYYY_MM, bounds in UTC) plus `audit_log_default` for anything outside them, and every
 * row is moved in one statement under the migration's lock on the old table (no entry can be written
 * to it meanwhile; the audit writer retries a refused COPY at its next flush). The writer's binary COPY
 * names its columns, so their order does not matter to it.
 */
export class AuditLogPartitions1764070000000 implements MigrationInterface {
  name = 'AuditLogPartitions1764070000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`LOCK TABLE audit_log IN ACCESS EXCLUSIVE MODE`);
    await q.query(`ALTER TABLE audit_log RENAME TO audit_log_unpartitioned`);
    await q.query(`ALTER TABLE audit_log_unpartitioned RENAME CONSTRAINT audit_log_pkey TO audit_log_unpartitioned_pkey`);
    await q.query(`ALTER INDEX "IDX_AUDIT_LOG_TENANT_MODE_RESOURCE" RENAME TO "IDX_AUDIT_LOG_UNPARTITIONED_RESOURCE"`);
    await q.query(`ALTER INDEX "IDX_AUDIT_LOG_TENANT_MODE_KEY" RENAME TO "IDX_AUDIT_LOG_UNPARTITIONED_KEY"`);

    await q.query(`
      CREATE TABLE audit_log (
        ${COLUMNS},
        CONSTRAINT audit_log_pkey PRIMARY KEY (tenant_id, mode, at, id)
      ) PARTITION BY RANGE (at)`);
    for (const month of await monthsToCreate(q, 'audit_log_unpartitioned')) {
      await q.query(
        `CREATE TABLE ${partitionName('audit_log', month)} PARTITION OF audit_log FOR VALUES FROM ('${month} 00:00:00+00') TO ('${nextMonth(month)} 00:00:00+00')`,
      );
    }
    await q.query(`CREATE TABLE audit_log_default PARTITION OF audit_log DEFAULT`);

    await q.query(`
      INSERT INTO audit_log (id, tenant_id, mode, at, api_key_id, action, resource_type, resource_id, status, request_id, ip)
      SELECT id, tenant_id, mode, at, api_key_id, action, resource_type, resource_id, status, request_id, ip FROM audit_log_unpartitioned`);
    const [{ before }] = (await q.query(`SELECT count(*)::bigint AS before FROM audit_log_unpartitioned`)) as { before: string }[];
    const [{ after }] = (await q.query(`SELECT count(*)::bigint AS after FROM audit_log`)) as { after: string }[];
    if (before !== after) throw new Error(`audit_log partitioning moved ${after} of ${before} entries; rolled back`);

    // Built once over the moved rows rather than maintained row by row during the move.
    await q.query(
      `CREATE INDEX "IDX_AUDIT_LOG_TENANT_MODE_RESOURCE" ON audit_log (tenant_id, mode, resource_id, at) WHERE resource_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "IDX_AUDIT_LOG_TENANT_MODE_KEY" ON audit_log (tenant_id, mode, api_key_id, at)`);
    await q.query(`DROP TABLE audit_log_unpartitioned`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`LOCK TABLE audit_log IN ACCESS EXCLUSIVE MODE`);
    await q.query(`
      CREATE TABLE audit_log_unpartitioned (${COLUMNS})`);
    await q.query(
      `INSERT INTO audit_log_unpartitioned SELECT id, tenant_id, mode, at, api_key_id, action, resource_type, resource_id, status, request_id, ip FROM audit_log`,
    );
    await q.query(`DROP TABLE audit_log`);
    await q.query(`ALTER TABLE audit_log_unpartitioned RENAME TO audit_log`);
    await q.query(`ALTER TABLE audit_log ADD CONSTRAINT audit_log_pkey PRIMARY KEY (tenant_id, mode, at, id)`);
    await q.query(
      `CREATE INDEX "IDX_AUDIT_LOG_TENANT_MODE_RESOURCE" ON audit_log (tenant_id, mode, resource_id, at) WHERE resource_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "IDX_AUDIT_LOG_TENANT_MODE_KEY" ON audit_log (tenant_id, mode, api_key_id, at)`);
  }
}

/** First days (UTC, `YYYY-MM-01`) of every month from the oldest row of `table` through MONTHS_AHEAD past now. */
async function monthsToCreate(q: QueryRunner, table: string): Promise<string[]> {
  const rows = (await q.query(`
    SELECT to_char(m, 'YYYY-MM-DD') AS month
      FROM generate_series(
             date_trunc('month', least((SELECT min(at) FROM ${table}), now()) AT TIME ZONE 'UTC'),
             date_trunc('month', greatest((SELECT max(at) FROM ${table}), now()) AT TIME ZONE 'UTC') + interval '${MONTHS_AHEAD} months',
             interval '1 month') AS m`)) as { month: string }[];
  return rows.map((r) => r.month);
}

function partitionName(table: string, month: string): string {
  return `${table}_p${month.slice(0, 4)}_${month.slice(5, 7)}`;
}

/** Bounds are UTC instants, whatever the session's time zone. */
function nextMonth(month: string): string {
  const d = new Date(`${month}T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return d.toISOString().slice(0, 10);
}
