import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { JobsOptions } from 'bullmq';
import { DataSource, EntityManager } from 'typeorm';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
import { uuidv7 } from '../ids';
import type { TenantScope } from '../../database/tenant-owned.entity';
import { BusinessClock } from '../time/business-clock';
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
  /**
   * Whose business time `runAt` is: the job is due when this scope's clock (BusinessClock: a test-mode
   * tenant's test clock) reaches it, and a test clock's advance runs it. Absent: the process's clock.
   */
  dueBy?: TenantScope;
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
  /** The tenant whose test clock `runAt` is read on; null: the process's clock. */
  clockTenantId: string | null;
}

/** A delayed job that a test clock's advance runs (`dueOnClock`). */
export type ClockedJob = OutboxRow & { jobId: string; added: boolean };

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
    private readonly clock: BusinessClock,
  ) {}

  /** Records a job in `tx`; it is added to its queue once `tx` commits, and never if it rolls back. */
  add<N extends JobName>(name: N, payload: JobPayloads[N], options: OutboxJobOptions, tx: EntityManager): Promise<void> {
    return this.addMany([{ name, payload, options }], tx);
  }

  /** Records many jobs with one statement (an enrolment of a thousand patients, a webhook fan-out). */
  async addMany(jobs: readonly OutboxJob[], tx: EntityManager): Promise<void> {
    if (!jobs.length) return;
    const rows: OutboxRow[] = jobs.map(({ name, payload, options: { runAt, dueBy, ...options } }) => ({
      id: uuidv7(),
      name,
      payload,
      options,
      runAt: runAt === undefined ? null : new Date(runAt),
      clockTenantId: runAt !== undefined && dueBy?.mode === 'test' ? dueBy.tenantId : null,
    }));
    await unscopedSql(
      tx,
      `INSERT INTO job_outbox (id, prefix, name, job_id, payload, options, run_at, clock_tenant_id, available_at)
       SELECT r.id, $3, r.name, r.options->>'jobId', r.payload, r.options, r."runAt", r."clockTenantId", clock_timestamp() + make_interval(secs => $2)
         FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, name text, payload jsonb, options jsonb, "runAt" timestamptz, "clockTenantId" uuid)`,
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
        RETURNING id, name, payload, options, run_at AS "runAt", clock_tenant_id AS "clockTenantId"`,
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
      const clocks = await this.clock.offsetsOf(rows.filter((r) => r.runAt && r.clockTenantId).map((r) => r.clockTenantId!));
      const now = clock.nowMs(); // runAt is a business time; BullMQ's delay a duration from here
      const outcomes = await Promise.allSettled(
        rows.map((r) =>
          this.queue.add(r.name, r.payload as JobPayloads[JobName], {
            ...r.options,
            delay: r.runAt ? delayUntil(r.runAt, now + (clocks.get(r.clockTenantId!) ?? 0)) : undefined,
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
          rows
            .filter((r, i) => r.runAt && outcomes[i].status === 'fulfilled')
            .map((r) => ({ ...r, jobId: r.options.jobId, offsetMs: clocks.get(r.clockTenantId!) ?? 0 })),
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
  async retime(clockTenantId?: string): Promise<number> {
    const rows = await unscopedSql<{ name: JobName; jobId: string; runAt: Date; offsetMs: string | null }[]>(
      this.dataSource,
      `SELECT o.name, o.job_id AS "jobId", o.run_at AS "runAt", c.offset_ms AS "offsetMs"
         FROM job_outbox o LEFT JOIN test_clocks c ON c.tenant_id = o.clock_tenant_id
        WHERE o.prefix = $1 AND o.added_at IS NOT NULL AND o.run_at IS NOT NULL AND ($2::uuid IS NULL OR o.clock_tenant_id = $2)`,
      [this.config.redis.prefix, clockTenantId ?? null],
    );
    return this.retimeJobs(rows.map((r) => ({ ...r, offsetMs: Number(r.offsetMs ?? 0) })));
  }

  /**
   * The delayed jobs due on this tenant's test clock at or before `until`, earliest first, leaving out the
   * rows `seen`: what an advance of the clock runs next.
   */
  async dueOnClock(tenantId: string, until: Date, seen: readonly string[]): Promise<ClockedJob[]> {
    return unscopedSql<ClockedJob[]>(
      this.dataSource,
      `SELECT id, name, payload, options, run_at AS "runAt", clock_tenant_id AS "clockTenantId", job_id AS "jobId", added_at IS NOT NULL AS added
         FROM job_outbox
        WHERE prefix IN ($1, '') AND clock_tenant_id = $2 AND run_at <= $3 AND NOT (id = ANY($4::uuid[]))
        ORDER BY run_at, id LIMIT 1000`,
      [this.config.redis.prefix, tenantId, until, seen],
    );
  }

  /**
   * Makes these jobs due now, whatever their delay: one not added yet is added, then each is promoted (the
   * process that recorded it may have added it meanwhile, timed by the clock before it moved). Answers how
   * many it could not add (Redis away).
   */
  async runNow(jobs: readonly ClockedJob[]): Promise<number> {
    const notAdded = jobs.filter((j) => !j.added);
    const failed = notAdded.length ? await this.dispatch(notAdded) : 0;
    if (failed) return failed;
    await Promise.all(jobs.map((j) => this.queue.retime(j.name, j.jobId, 0)));
    return 0;
  }

  /** Which of these rows' jobs have not finished for good yet. */
  async unfinished(ids: readonly string[]): Promise<string[]> {
    const rows = await unscopedSql<{ id: string }[]>(this.dataSource, `SELECT id FROM job_outbox WHERE id = ANY($1::uuid[])`, [ids]);
    return rows.map((r) => r.id);
  }

  /**
   * The jobs with these ids will not be wanted (their work was cancelled in `tx`): their rows go with the
   * commit, and the jobs leave Redis after it when they can (one that runs anyway finds nothing to do).
   */
  async forget(name: JobName, jobIds: readonly string[], tx: EntityManager): Promise<void> {
    if (!jobIds.length) return;
    await unscopedSql(tx, `DELETE FROM job_outbox WHERE prefix IN ($1, '') AND job_id = ANY($2::text[])`, [
      this.config.redis.prefix,
      jobIds,
    ]);
    this.transactions.afterCommit(tx, () => {
      if (!this.queue.available) return;
      void Promise.allSettled(jobIds.map((jobId) => this.queue.remove(name, jobId)));
    });
  }

  private async retimeJobs(
    rows: readonly { name: JobName; jobId: string; runAt: Date | string | null; offsetMs: number }[],
  ): Promise<number> {
    let moved = 0;
    for (let i = 0; i < rows.length; i += RETIME_CHUNK) {
      const now = clock.nowMs();
      const outcomes = await Promise.all(
        rows.slice(i, i + RETIME_CHUNK).map((r) => this.queue.retime(r.name, r.jobId, r.runAt ? delayUntil(r.runAt, now + r.offsetMs) : 0)),
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

/** A delay from `now` to `runAt` on the same clock, never negative. */
function delayUntil(runAt: Date | string, now: number): number {
  return Math.max(0, new Date(runAt).getTime() - now);
}
