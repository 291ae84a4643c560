import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { isUnavailable } from '../common/observability/dependency-status';
import { AppConfig } from '../config/app-config';
import { dataSourceOptions } from './database-options';
import { unscopedSql } from './sql';

/** How often each replica's reachability and lag are read, and how long a reading may take before it counts as no answer. */
const CHECK_INTERVAL_MS = 1000;
const CHECK_TIMEOUT_MS = 1000;

/**
 * What a replica says of itself: whether it is a standby; whether a WAL receiver is running and everything it
 * received has been replayed; and the age of the last transaction it replayed (as the primary stamped its
 * commit). Functions any role may call.
 */
const STATUS = `SELECT pg_is_in_recovery() AS standby,
  EXISTS (SELECT 1 FROM pg_stat_wal_receiver) AND pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() AS "caughtUp",
  (EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS "replayAgeMs"`;

export interface ReplicaStatus {
  standby: boolean;
  caughtUp: boolean | null;
  replayAgeMs: number | null;
}

/**
 * How far a replica is behind its primary, in ms. None when it has replayed all it received: an idle primary
 * commits nothing, so the last replayed commit may be hours old on a replica that misses nothing. Otherwise
 * the age of that commit, and Infinity when it has replayed none since it started (its lag is unknown). A
 * server that is not a standby is never behind. `<=` rather than `=`: a restarted WAL receiver reports the
 * start of the segment it streams from, behind what was already replayed.
 */
export function replicaLagMs(status: ReplicaStatus): number {
  if (!status.standby || status.caughtUp) return 0;
  return status.replayAgeMs === null ? Infinity : Math.max(0, status.replayAgeMs);
}

/** Why a replica serves no reads: it did not answer its check, or it is further behind than `maxLagMs`. */
export type OutOfRotation = 'unreachable' | 'lagging';

export function outOfRotation(lagMs: number | undefined, maxLagMs: number): OutOfRotation | undefined {
  if (lagMs === undefined) return 'unreachable';
  return lagMs > maxLagMs ? 'lagging' : undefined;
}

/** The next of the replicas in rotation after `turn` reads, taking them in turn; none when none is in rotation. */
export function nextInRotation<R extends { serving: boolean }>(replicas: readonly R[], turn: number): R | undefined {
  const serving = replicas.filter((r) => r.serving);
  return serving.length ? serving[turn % serving.length] : undefined;
}

interface Replica {
  /** host:port/database, for the log: never the credentials. */
  name: string;
  source: DataSource;
  serving: boolean;
  /** Whether a check has judged it: the first judgement is logged, then only changes of `serving`. */
  judged: boolean;
  checking?: Promise<void>;
}

/**
 * The read replicas (DATABASE_READ_URLS) and which of them serve reads. Each has a pool of its own (TypeORM
 * DataSource, the primary's options, no migrations), opened by the first read that could use it, so processes
 * that make none (the worker, the CLI) open none. Every second each replica says how far behind the primary it
 * is; one that does not answer, or lags more than DATABASE_READ_MAX_LAG_MS, is out of rotation until a
 * check finds it answering and caught up again.
 */
@Injectable()
export class ReadReplicas implements OnApplicationShutdown {
  private readonly logger = new Logger('ReadReplicas');
  private readonly replicas: Replica[];
  private readonly maxLagMs: number;
  private started?: Promise<void>;
  private timer?: NodeJS.Timeout;
  private turn = 0;
  private closed = false;

  constructor(config: AppConfig) {
    const { readUrls, namedStatements, appName, readMaxLagMs } = config.database;
    this.maxLagMs = readMaxLagMs;
    const applicationName = appName ? `${appName}/read-replica` : 'read-replica';
    // A standby is read-only: its pool neither migrates nor creates the extensions the entities need.
    this.replicas = readUrls.map((url, i) => ({
      name: replicaName(url, i),
      source: new DataSource({ ...dataSourceOptions(url, namedStatements), migrations: [], installExtensions: false, applicationName }),
      serving: false,
      judged: false,
    }));
  }

  /**
   * Runs `work`, a read that may be a little behind the primary (a list, a search, a log), with `db` the
   * manager of a replica in rotation, passed as the repositories' `tx`; with `db` undefined (the primary)
   * when there are no replicas or none is in rotation. A read that fails on a replica runs again on the
   * primary: it changes nothing, a replica's own trouble (gone, a statement cancelled by replay) then costs
   * no error, and an error of the read itself comes from the primary as it would without replicas. A replica
   * that is gone leaves the rotation at once. Never for a read by id, anything in a transaction or after a
   * write, which must see the primary.
   */
  async read<T>(work: (db: EntityManager | undefined) => Promise<T>): Promise<T> {
    if (!this.replicas.length) return work(undefined);
    await (this.started ??= this.start());
    const replica = this.closed ? undefined : nextInRotation(this.replicas, this.turn++);
    if (!replica) return work(undefined);
    try {
      return await work(replica.source.manager);
    } catch (err) {
      const cause = (err as { driverError?: unknown }).driverError ?? err;
      const unavailable = isUnavailable(err) || isUnavailable(cause);
      // Only the replica's failures run again on the primary: a refusal of the work's own (a 404) stands.
      if (!unavailable && !(err instanceof QueryFailedError)) throw err;
      if (unavailable) this.judge(replica, undefined, cause);
      return work(undefined);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.all(this.replicas.map((r) => r.checking ?? Promise.resolve()));
    await Promise.all(this.replicas.filter((r) => r.source.isInitialized).map((r) => r.source.destroy()));
  }

  private async start(): Promise<void> {
    await this.checkAll();
    this.schedule();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.checkAll().finally(() => this.schedule()), CHECK_INTERVAL_MS);
    this.timer.unref();
  }

  private async checkAll(): Promise<void> {
    await Promise.all(this.replicas.map((r) => this.check(r)));
  }

  /**
   * One reading of the replica's status. A reading still under way (a replica that accepts no connection and
   * refuses none) is not doubled: it ends with the pool's connect timeout, and meanwhile the replica is out.
   */
  private async check(replica: Replica): Promise<void> {
    if (this.closed) return;
    replica.checking ??= this.status(replica)
      .then(
        (status) => this.judge(replica, replicaLagMs(status)),
        (err: unknown) => this.judge(replica, undefined, err),
      )
      .finally(() => (replica.checking = undefined));
    let timeout: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      replica.checking.then(() => true),
      new Promise<false>((resolve) => (timeout = setTimeout(() => resolve(false), CHECK_TIMEOUT_MS))),
    ]);
    clearTimeout(timeout);
    if (!answered) this.judge(replica, undefined, new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`));
  }

  private async status(replica: Replica): Promise<ReplicaStatus> {
    if (!replica.source.isInitialized) await replica.source.initialize();
    const [row] = await unscopedSql<ReplicaStatus[]>(replica.source, STATUS);
    return row;
  }

  /** Puts the replica in or out of rotation for its lag (undefined: it did not answer, for `err`). */
  private judge(replica: Replica, lagMs: number | undefined, err?: unknown): void {
    const reason = outOfRotation(lagMs, this.maxLagMs);
    const wasServing = replica.serving;
    replica.serving = !reason;
    if (replica.judged && replica.serving === wasServing) return;
    replica.judged = true;
    if (!reason) {
      this.logger.log({ replica: replica.name, state: 'in rotation' }, `read replica ${replica.name} in rotation`);
      return;
    }
    // The error's class, code and first line only: a connection error, never a row.
    const e = err as { name?: string; code?: string; message?: string } | undefined;
    const detail = reason === 'lagging' ? { lagMs } : { type: e?.name, code: e?.code, message: e?.message?.split('\n', 1)[0] };
    this.logger.warn(
      { replica: replica.name, state: 'out of rotation', reason, ...detail },
      `read replica ${replica.name} out of rotation (${reason})`,
    );
  }
}

function replicaName(url: string, index: number): string {
  try {
    const { hostname, port, pathname } = new URL(url);
    return `${hostname}:${port || 5432}${pathname}`;
  } catch {
    return `#${index + 1}`;
  }
}
