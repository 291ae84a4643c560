import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { OverlappingTransactionError, recoveryLog, RecoveryLog } from '../common/idempotency/recovery-log';

/** What runs once a transaction has committed; never awaited by the work's caller. */
type AfterCommit = () => void;

/**
 * The one way a service opens a transaction. `work` receives the transaction's entity manager and passes
 * it as the last argument (`tx`) of every repository call that must commit or roll back with it; a
 * module writes its row, an events-outbox row and a counter in one `run`. The transaction commits when
 * `work` resolves and rolls back when it throws (the error is rethrown as it was).
 *
 * Within a request that holds an Idempotency-Key, the work's result is also recorded in that transaction
 * (a recovery point), and a retry of the request after a crash gets the recorded result back instead of
 * running the work again: the write happens once. So the result must be plain data (structured-clone:
 * objects, arrays, strings, numbers, Dates; class instances come back as plain objects), and a request
 * runs its transactions one after another, in the same order each time: a nested or parallel `run` in
 * such a request throws OverlappingTransactionError.
 */
@Injectable()
export class Transactions {
  /** Keyed by the transaction's entity manager, which TypeORM creates afresh for each transaction. */
  private readonly afterCommits = new WeakMap<EntityManager, AfterCommit[]>();
  /** The recovery logs whose request has a transaction open right now. */
  private readonly open = new WeakSet<RecoveryLog>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  run<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    const log = recoveryLog.getStore();
    if (!log?.active) return this.transaction(work);
    return this.runRecorded(log, work);
  }

  /**
   * Calls `fn` once `tx` has committed and its connection is back in the pool, without the caller of
   * `run` waiting for it (dropped if `tx` rolls back). Only for JobOutbox's prompt dispatch: work that
   * must follow a commit is recorded in the transaction through JobOutbox, whose relay does it if this
   * call never happens (a transaction opened outside `run`, or a process that died right after COMMIT).
   */
  afterCommit(tx: EntityManager, fn: AfterCommit): void {
    const list = this.afterCommits.get(tx);
    if (list) list.push(fn);
    else this.afterCommits.set(tx, [fn]);
  }

  /**
   * For work that is a single statement (atomic on its own, such as a write and its event in one
   * statement): no BEGIN and COMMIT round trips. Within a request holding an Idempotency-Key it runs as
   * `run` does, in a transaction that also records its recovery point. `tx` is undefined outside one.
   */
  runOne<T>(work: (tx: EntityManager | undefined) => Promise<T>): Promise<T> {
    const log = recoveryLog.getStore();
    if (!log?.active) return work(undefined);
    return this.runRecorded(log, work);
  }

  private async runRecorded<T>(log: RecoveryLog, work: (tx: EntityManager) => Promise<T>): Promise<T> {
    if (this.open.has(log)) throw new OverlappingTransactionError();
    const replayed = log.replay();
    if (replayed) return replayed.value as T;
    this.open.add(log);
    try {
      const result = await this.transaction(async (tx) => {
        const value = await work(tx);
        await log.record(value, tx);
        return value;
      });
      log.committed();
      return result;
    } finally {
      this.open.delete(log);
    }
  }

  private async transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    let manager: EntityManager | undefined;
    const result = await this.dataSource.transaction((tx) => {
      manager = tx;
      return work(tx);
    });
    const callbacks = manager && this.afterCommits.get(manager);
    if (callbacks) for (const fn of callbacks) fn();
    return result;
  }
}
