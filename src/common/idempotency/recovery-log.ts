import { AsyncLocalStorage } from 'node:async_hooks';
import type { EntityManager } from 'typeorm';

/**
 * Recovery points of the request being served, lent to `Transactions.run` by the Idempotency-Key
 * interceptor for a POST that carries a key. Each committed transaction's result is recorded inside that
 * transaction, so "the write happened" and "its result is known" commit together.
 */
export interface RecoveryLog {
  /** False once the request has answered: work started later is not part of it. */
  readonly active: boolean;
  /** The next result an earlier attempt of this request committed, if any (the work is then not run again). */
  replay(): { value: unknown } | undefined;
  /** Records a transaction's result inside it, before COMMIT; throws (rolling it back) if the request lost its key. */
  record(value: unknown, tx: EntityManager): Promise<void>;
  /** The transaction that recorded the last result committed. */
  committed(): void;
}

/** Set only around a request that holds an Idempotency-Key, so other requests pay nothing for it. */
export const recoveryLog = new AsyncLocalStorage<RecoveryLog>();

/**
 * Thrown by `Transactions.run` when a keyed request opens a transaction while another of its own is still
 * open. Recovery points are matched to transactions by their order, so a nested or parallel one would make
 * a retry replay a result into the wrong place: a programming error, answered 500.
 */
export class OverlappingTransactionError extends Error {
  constructor() {
    super('a request holding an Idempotency-Key ran a transaction while another of its own was open (nested or in parallel)');
    this.name = 'OverlappingTransactionError';
  }
}
