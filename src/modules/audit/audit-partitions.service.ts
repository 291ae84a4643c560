import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { unscopedSql } from '../../database/sql';

/** The month-partitioned tables of the audit log; an entry's patients are dropped with their entry's month. */
const TABLES = ['audit_log', 'audit_log_patients'] as const;
/** Months kept ready past the current one, so that entries never wait for a partition. */
export const MONTHS_AHEAD = 3;
/** Partitions dropped per table per pass: a backlog (a lowered retention) goes a year per pass. */
const MAX_DROPS = 12;
/** Rows deleted per pass from a default partition past retention (it is normally empty). */
const MAX_DEFAULT_DELETES = 10_000;
/** One pass at a time across every worker; others skip it (an arbitrary constant). */
const LOCK = 7_203_318_452;

export interface PartitionPass {
  created: string[];
  dropped: string[];
  /** Entries (and their patients) past retention deleted from the default partitions. */
  deleted: number;
}

/**
 * Keeps audit_log and audit_log_patients partitioned by UTC month: creates the months from the current one
 * through MONTHS_AHEAD past it, and drops whole months older than `retentionMonths` before the current
 * one. One worker at a time does it (a transaction-scoped advisory lock; the others skip the pass). A month
 * whose rows already went to the default partition (a clock ahead of the partitions) gets them moved into
 * its new partition in the same transaction. Partitions are named `<table>_pYYYY_MM`; others are left alone.
 */
@Injectable()
export class AuditPartitions {
  constructor(private readonly dataSource: DataSource) {}

  async maintain(now: Date, retentionMonths: number): Promise<PartitionPass> {
    return this.dataSource.transaction(async (tx) => {
      const [{ locked }] = await unscopedSql<{ locked: boolean }[]>(tx, `SELECT pg_try_advisory_xact_lock($1) AS locked`, [LOCK]);
      if (!locked) return { created: [], dropped: [], deleted: 0 };
      // Creating and dropping partitions locks audit_log briefly; never hold up the audit writer for long.
      await unscopedSql(tx, `SET LOCAL lock_timeout = '5s'`);
      const current = monthStart(now, 0);
      const oldestKept = monthStart(now, -retentionMonths);
      const pass: PartitionPass = { created: [], dropped: [], deleted: 0 };
      for (const table of TABLES) {
        const existing = await partitionsOf(tx, table);
        for (let ahead = 0; ahead <= MONTHS_AHEAD; ahead++) {
          const month = monthStart(current, ahead);
          const name = partitionName(table, month);
          if (existing.has(name)) continue;
          await createPartition(tx, table, name, month, monthStart(month, 1));
          pass.created.push(name);
        }
        const expired = [...existing.entries()].filter(([, month]) => month < oldestKept).sort((a, b) => +a[1] - +b[1]);
        for (const [name] of expired.slice(0, MAX_DROPS)) {
          await unscopedSql(tx, `DROP TABLE ${name}`);
          pass.dropped.push(name);
        }
        const [, deleted] = await unscopedSql<[unknown, number]>(
          tx,
          `DELETE FROM ${table}_default WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${table}_default WHERE at < $1 LIMIT $2))`,
          [oldestKept, MAX_DEFAULT_DELETES],
        );
        if (table === 'audit_log') pass.deleted = deleted;
      }
      return pass;
    });
  }
}

/** The partitions of `table` this class names, by their month. */
async function partitionsOf(tx: EntityManager, table: string): Promise<Map<string, Date>> {
  const rows = await unscopedSql<{ name: string }[]>(
    tx,
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`,
    [table],
  );
  const months = new Map<string, Date>();
  const pattern = new RegExp(`^${table}_p(\\d{4})_(\\d{2})$`);
  for (const { name } of rows) {
    const match = pattern.exec(name);
    if (match) months.set(name, new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1)));
  }
  return months;
}

/**
 * A new month's partition, built beside the table and then attached: the rows of that month that went to
 * the default partition meanwhile move into it first (attaching checks that none is left there). The
 * default partition is locked first, so no entry lands there in between.
 */
async function createPartition(tx: EntityManager, table: string, name: string, from: Date, to: Date): Promise<void> {
  await unscopedSql(tx, `LOCK TABLE ${table}_default IN ACCESS EXCLUSIVE MODE`);
  await unscopedSql(tx, `CREATE TABLE ${name} (LIKE ${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
  await unscopedSql(
    tx,
    `WITH moved AS (DELETE FROM ${table}_default WHERE at >= $1 AND at < $2 RETURNING *) INSERT INTO ${name} SELECT * FROM moved`,
    [from, to],
  );
  await unscopedSql(
    tx,
    `ALTER TABLE ${table} ATTACH PARTITION ${name} FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`,
  );
}

/** The first instant (UTC) of the month `offset` months from `date`'s. */
function monthStart(date: Date, offset: number): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset, 1));
}

function partitionName(table: string, month: Date): string {
  return `${table}_p${month.getUTCFullYear()}_${String(month.getUTCMonth() + 1).padStart(2, '0')}`;
}
