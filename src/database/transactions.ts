import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, EntityManager } from 'typeorm';

/** What runs once a transaction has committed; never awaited by the work's caller. */
type AfterCommit = () => void;

/** Work done in a transaction, given its entity manager. */
export type TransactionWork<T> = (tx: EntityManager) => Promise<T>;

/**
 * Runs the transactions that `Transactions` opens within one async context, around each of them: `open`
 * opens the plain transaction. The layer that owns the context sets it (runTransactionsWith), so that
 * this layer need not know why: a request holding an Idempotency-Key records each result in its
 * transaction this way.
 */
export interface TransactionRunner {
  run<T>(work: TransactionWork<T>, open: <U>(work: TransactionWork<U>) => Promise<U>): Promise<T>;
}

const runners = new AsyncLocalStorage<TransactionRunner>();

/** Calls `fn` with every transaction opened within it (and within what it starts) run by `runner`. */
export function runTransactionsWith<T>(runner: TransactionRunner, fn: () => T): T {
  return runners.run(runner, fn);
}

/**
 * The one way a service opens a transaction. `work` receives the transaction's entity manager and passes
 * it as the last argument (`tx`) of every repository call that must commit or roll back with it; a
 * module writes its row, an events-outbox row and a counter in one `run`. The transaction commits when
 * `work` resolves and rolls back when it throws (the error is rethrown as it was). Within a context set
 * by runTransactionsWith, that context's runner runs it.
 */
@Injectable()
export class Transactions {
  /** Keyed by the transaction's entity manager, which TypeORM creates afresh for each transaction. */
  private readonly afterCommits = new WeakMap<EntityManager, AfterCommit[]>();

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  run<T>(work: TransactionWork<T>): Promise<T> {
    const runner = runners.getStore();
    return runner ? runner.run(work, (w) => this.transaction(w)) : this.transaction(work);
  }

  /**
   * For work that is a single statement (atomic on its own, such as a write and its event in one
   * statement): no BEGIN and COMMIT round trips, and `tx` is undefined. Within a context set by
   * runTransactionsWith it runs as `run` does, in a transaction, so that its runner sees it.
   */
  runOne<T>(work: (tx: EntityManager | undefined) => Promise<T>): Promise<T> {
    return runners.getStore() ? this.run(work) : work(undefined);
  }

  /**
   * A step of `tx`'s transaction that can fail alone (a savepoint): when `work` throws, only what it
   * wrote is rolled back, the transaction goes on, and the error is rethrown as it was.
   */
  step<T>(tx: EntityManager, work: TransactionWork<T>): Promise<T> {
    if (!tx.queryRunner?.isTransactionActive) throw new Error('Transactions.step needs the manager of an open transaction');
    return tx.transaction(work);
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

  private async transaction<T>(work: TransactionWork<T>): Promise<T> {
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
