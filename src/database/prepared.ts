import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { EntityManager, QueryFailedError } from 'typeorm';

const names = new Map<string, string>();

/** A stable name per statement text: each connection parses and plans it once, then only binds and runs it. */
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `s_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Runs one statement straight on the driver, on the transaction's connection when `manager` is a
 * transaction's, else on a pooled one, and answers its rows (no entity hydration). `prepared`: as a named
 * prepared statement, which PostgreSQL parses and plans once per connection instead of on every call (for
 * the hot paths, where parse and plan were most of PostgreSQL's CPU per request). Leave it off for
 * statements whose text varies a lot, or whose best plan depends on the values (a generic plan could be
 * chosen after five runs). Errors are QueryFailedErrors, as TypeORM's, so constraint names map as usual.
 */
export async function runStatement<R>(manager: EntityManager, text: string, values: unknown[], prepared: boolean): Promise<R[]> {
  const runner = manager.queryRunner as { databaseConnection?: PoolClient; connect(): Promise<PoolClient> } | undefined;
  // A transaction's runner holds its connection (connect() answers it); otherwise any pooled connection.
  const target: Pool | PoolClient = runner
    ? (runner.databaseConnection ?? (await runner.connect()))
    : (manager.connection.driver as unknown as { master: Pool }).master;
  try {
    const result = await target.query(prepared ? { name: statementName(text), text, values } : { text, values });
    return result.rows as R[];
  } catch (err) {
    throw new QueryFailedError(text, values, err as Error);
  }
}
