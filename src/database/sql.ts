import { DataSource, EntityManager } from 'typeorm';

export { isPrepared, prepared } from './pool-client';

/**
 * The one way to run raw SQL outside the tenant-scoped repositories (whose `sql()` binds the scope first
 * and then comes here): for the few statements that are not one tenant's, such as the outbox relays,
 * partition upkeep, retention, the API-key lookup that finds the tenant, and health checks. It runs through
 * TypeORM, on the transaction's connection when `db` is a transaction's manager, else on a pooled one, with
 * unnamed statements only, so that it works behind PgBouncer in transaction mode. It answers what TypeORM
 * answers for PostgreSQL: the rows, or `[rows, count]` for an UPDATE or DELETE; a failure is a
 * QueryFailedError, so constraint names map as usual (database-errors.ts).
 */
export function unscopedSql<R = unknown>(db: DataSource | EntityManager, statement: string, params: unknown[] = []): Promise<R> {
  return db.query<R>(statement, params);
}
