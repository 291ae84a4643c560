import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { JobsOptions } from 'bullmq';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
import { uuidv7 } from '../ids';
import { clock } from '../time/clock';
import { describeError } from './job-handler';
import { JobQueue } from './job-queue';
import { JobName, JobPayloads } from './queues';
import { unscopedSql } from '../../database/sql';

/** How long the recording process has to add a job itself before a relay may take it. */
const OWN_TRY_SECONDS = 2;
/** How long a relay holds the rows it took; its adds fail well within this when Redis is away. */
const LEASE_SECONDS = 10;
/** How soon rows a relay could not add are offered again. */
const RETRY_SECONDS = 1;
/** Delayed jobs timed again at once (Redis calls in flight). */
const RETIME_CHUNK = 200;

/** A job's BullMQ options: `jobId` always (a second add of an id is a no-op); `runAt` for a delayed job. */
export interface OutboxJobOptions extends Pick<JobsOptions, 'attempts' | 'backoff'> {
  jobId: string;
  /** When the job is due; absent: at once. */
  runAt?: Date | string;
}

/** One job for `addMany`. */
export interface OutboxJob<N extends JobName = JobName> {
  name: N;
  payload: JobPayloads[N];
  options: OutboxJobOptions;
}

interface OutboxRow {
  id: string;
  name: JobName;
  payload: object;
  options: Pick<OutboxJobOptions, 'jobId' | 'attempts' | 'backoff'>;
  runAt: Date | null;
}

/**
 * The one way to start work after a commit: a job is recorded in the transaction whose commit it must
 * follow (a row of `job_outbox`), so it exists exactly when the change does, and is added to its queue
 * once that transaction has committed:
 * - at once, by the process that committed it, after its connection is back in the pool and without the
 *   request waiting (Transactions.afterCommit); while Redis is away that add fails at once and the row stays;
 * - otherwise by JobOutboxRelay, a periodic job (once per cluster): rows older than OWN_TRY_SECONDS, in the
 *   order they were recorded, each taken by one relay (SKIP LOCKED and a lease).
 * A job with `runAt` is due at that time by the clock; while it waits in Redis it is timed again whenever
 * the clock moves (`retime`).
 * Once Redis has accepted its job a row is marked added, and it goes when the job has finished for good
 * (QueueWorkers calls `done`): a Redis that comes back without its data (restarted without persistence,
 * flushed, failed over to an empty replica) is told by a marker key it no longer holds, and the relay then
 * adds every unfinished job again (`readdAll`). Jobs may thus be added twice (also by a process that died
 * between its add and the mark): the jobId makes that a no-op while the job exists, and every handler
 * claims its work in PostgreSQL, so a job that runs twice does it once.
 *
 * ```ts
 * await this.transactions.run(async (tx) => {
 *   const row = await this.things.insert(auth, values, tx);
 *   await this.outbox.add(JobName.ThingProcess, { thingId: row.id, tenantId: auth.tenantId, mode: auth.mode }, { jobId: row.id }, tx);
 * });
 * ```
 */
@Injectable()
export class JobOutbox {
  private readonly logger = new Logger(JobOutbox.name);
  /** Rows recorded per open transaction, added after its commit. */
  private readonly recorded = new WeakMap<EntityManager, OutboxRow[]>();

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: Transactions,
    private readonly queue: JobQueue,
    private readonly config: AppConfig,
  ) {}

  /** Records a job in `tx`; it is added to its queue once `tx` commits, and never if it rolls back. */
  add<N extends JobName>(name: N, payload: JobPayloads[N], options: OutboxJobOptions, tx: EntityManager): Promise<void> {
    return this.addMany([{ name, payload, options }], tx);
  }

  /** Records many jobs with one statement (an enrolment of a thousand patients, a webhook fan-out). */
  async addMany(jobs: readonly OutboxJob[], tx: EntityManager): Promise<void> {
    if (!jobs.length) return;
    const rows: OutboxRow[] = jobs.map(({ name, payload, options: { runAt, ...options } }) => ({
      id: uuidv7(),
      name,
      payload,
      options,
      runAt: runAt === undefined ? null : new Date(runAt),
    }));
    await unscopedSql(
      tx,
      `INSERT INTO job_outbox (id, prefix, name, job_id, payload, options, run_at, available_at)
       SELECT r.id, $3, r.name, r.options->>'jobId', r.payload, r.options, r."runAt", clock_timestamp() + make_interval(secs => $2)
         FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, name text, payload jsonb, options jsonb, "runAt" timestamptz)`,
      [JSON.stringify(rows), OWN_TRY_SECONDS, this.config.redis.prefix],
    );
    const pending = this.recorded.get(tx);
    if (pending) {
      pending.push(...rows);
      return;
    }
    this.recorded.set(tx, rows);
    this.transactions.afterCommit(tx, () => void this.dispatch(rows));
  }

  /**
   * Takes up to `limit` rows of this app's queues (REDIS_PREFIX) that are due for a relay (their own
   * process did not add them in time, or a relay's lease lapsed) and leases them to the caller. Across
   * tenants by design: each payload names its own. Rows of no prefix, which a migration recorded without
   * knowing the app's, become this app's.
   */
  async take(limit: number): Promise<OutboxRow[]> {
    const [rows] = await unscopedSql<[OutboxRow[], number]>(
      this.dataSource,
      `UPDATE job_outbox SET available_at = clock_timestamp() + make_interval(secs => $2), prefix = $3
        WHERE id IN (SELECT id FROM job_outbox WHERE prefix IN ($3, '') AND added_at IS NULL AND available_at <= clock_timestamp()
                      ORDER BY available_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, name, payload, options, run_at AS "runAt"`,
      [limit, LEASE_SECONDS, this.config.redis.prefix],
    );
    return rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /**
   * Adds the rows' jobs and marks the rows Redis accepted. Answers how many it could not add; a relay
   * offers those again shortly (`release`), the committing process leaves them to the relay.
   */
  async dispatch(rows: readonly OutboxRow[], release = false): Promise<number> {
    // Redis is away: the rows wait for the relay, which tries again once it is back.
    if (!this.queue.available) return rows.length;
    try {
      const offset = clock.offsetMs();
      const now = clock.nowMs(); // runAt is a business time; BullMQ's delay a duration from here
      const outcomes = await Promise.allSettled(
        rows.map((r) =>
          this.queue.add(r.name, r.payload as JobPayloads[JobName], {
            ...r.options,
            delay: r.runAt ? Math.max(0, new Date(r.runAt ?? now).getTime() - now) : undefined,
          }),
        ),
      );
      const added = rows.filter((_, i) => outcomes[i].status === 'fulfilled').map((r) => r.id);
      const failed = rows.filter((_, i) => outcomes[i].status === 'rejected').map((r) => r.id);
      if (added.length)
        await unscopedSql(this.dataSource, `UPDATE job_outbox SET added_at = clock_timestamp() WHERE id = ANY($1::uuid[])`, [added]);
      // The clock moved meanwhile (a test): these were timed by the old one, and `retime` may have looked
      // before they were marked added.
      if (clock.offsetMs() !== offset) {
        await this.retimeJobs(
          rows.filter((r, i) => r.runAt && outcomes[i].status === 'fulfilled').map((r) => ({ ...r, jobId: r.options.jobId })),
        );
      }
      if (release && failed.length) {
        await unscopedSql(
          this.dataSource,
          `UPDATE job_outbox SET available_at = clock_timestamp() + make_interval(secs => $2) WHERE id = ANY($1::uuid[])`,
          [failed, RETRY_SECONDS],
        );
      }
      return failed.length;
    } catch (err) {
      // PostgreSQL failed the mark: the rows are added again (a no-op while their jobs exist).
      this.logger.warn(`job outbox: ${describeError(err)}`);
      return rows.length;
    }
  }

  /** The job `jobId` of this app's queues has finished for good (completed, failed for good, removed): its rows go. */
  async done(jobId: string): Promise<void> {
    await unscopedSql(this.dataSource, `DELETE FROM job_outbox WHERE prefix = $1 AND job_id = $2`, [this.config.redis.prefix, jobId]);
  }

  /**
   * Times every delayed job of this app's queues again by the clock, from the due time its row keeps: the
   * queue counts a delay in real milliseconds from its add, so a clock that moved (a test, a worker whose
   * clock is ahead of the process that added the job) would otherwise run it by the old time. Answers how
   * many jobs it moved.
   */
  async retime(): Promise<number> {
    const rows = await unscopedSql<{ name: JobName; jobId: string; runAt: Date }[]>(
      this.dataSource,
      `SELECT name, job_id AS "jobId", run_at AS "runAt" FROM job_outbox WHERE prefix = $1 AND added_at IS NOT NULL AND run_at IS NOT NULL`,
      [this.config.redis.prefix],
    );
    return this.retimeJobs(rows);
  }

  private async retimeJobs(rows: readonly { name: JobName; jobId: string; runAt: Date | string | null }[]): Promise<number> {
    let moved = 0;
    for (let i = 0; i < rows.length; i += RETIME_CHUNK) {
      const now = clock.nowMs();
      const outcomes = await Promise.all(
        rows
          .slice(i, i + RETIME_CHUNK)
          .map((r) => this.queue.retime(r.name, r.jobId, Math.max(0, new Date(r.runAt ?? now).getTime() - now))),
      );
      moved += outcomes.filter(Boolean).length;
    }
    return moved;
  }

  /** Redis lost the jobs it had accepted: every unfinished job of this app's queues is offered to the relay again. Answers how many. */
  async readdAll(): Promise<number> {
    const [, count] = await unscopedSql<[unknown[], number]>(
      this.dataSource,
      `UPDATE job_outbox SET added_at = NULL, available_at = clock_timestamp() WHERE prefix = $1 AND added_at IS NOT NULL`,
      [this.config.redis.prefix],
    );
    return count;
  }
}
