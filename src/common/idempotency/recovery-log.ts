import { deserialize, serialize } from 'node:v8';
import type { EntityManager } from 'typeorm';
import type { TransactionRunner, TransactionWork } from '../../database/transactions';

/**
 * Thrown when a request holding an Idempotency-Key opens a transaction while another of its own is still
 * open. Recovery points are matched to transactions by their order, so a nested or parallel one would make
 * a retry replay a result into the wrong place: a programming error, answered 500. A step of the open
 * transaction (Transactions.step) is part of it, and is fine.
 */
export class OverlappingTransactionError extends Error {
  constructor() {
    super('a request holding an Idempotency-Key ran a transaction while another of its own was open (nested or in parallel)');
    this.name = 'OverlappingTransactionError';
  }
}

/**
 * How a request holding an Idempotency-Key runs its transactions (the interceptor sets it with
 * runTransactionsWith): each transaction's result is recorded inside that transaction (a recovery point),
 * so "the write happened" and "its result is known" commit together. A retry of the request after a crash
 * gets the recorded results back, in order, instead of running the work again: the write happens once. So
 * a result must be plain data (structured-clone: objects, arrays, strings, numbers, Dates; class instances
 * come back as plain objects), and the request runs its transactions one after another, in the same order
 * each time: a nested or parallel one throws OverlappingTransactionError before it writes anything.
 */
export class RecoveryLog implements TransactionRunner {
  private next = 0;
  private busy = false;
  private open = true;
  /** Whether an earlier attempt's result stood in for this request's work. */
  replayedAny = false;

  /**
   * `points`: the results an earlier attempt committed, serialised; `record` appends one inside the
   * transaction, and throws (rolling it back) if the request lost its key.
   */
  constructor(
    private readonly points: readonly Buffer[],
    private readonly record: (point: Buffer, tx: EntityManager) => Promise<void>,
  ) {}

  /** The request has answered: what it left running is no longer guarded by its key, and runs plainly. */
  close(): void {
    this.open = false;
  }

  async run<T>(work: TransactionWork<T>, open: <U>(work: TransactionWork<U>) => Promise<U>): Promise<T> {
    if (!this.open) return open(work);
    if (this.busy) throw new OverlappingTransactionError();
    const point = this.points[this.next];
    if (point !== undefined) {
      this.next++;
      this.replayedAny = true;
      return deserialize(point) as T;
    }
    this.busy = true;
    try {
      const value = await open(async (tx) => {
        const result = await work(tx);
        await this.record(serialize(result), tx);
        return result;
      });
      this.next++;
      return value;
    } finally {
      this.busy = false;
    }
  }
}
