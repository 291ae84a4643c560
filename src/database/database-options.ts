import { join } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';
import { PoolClient } from './pool-client';
import { SnakeNamingStrategy } from './snake-naming.strategy';

// Compiled: dist/database -> dist/migrations. Under jest: src/database -> ./migrations.
const MIGRATIONS_DIR = __filename.endsWith('.ts') ? join(__dirname, '..', '..', 'migrations') : join(__dirname, '..', 'migrations');
// Domain tables live in modules/; platform tables (idempotency keys) in common/.
const ENTITIES = [join(__dirname, '..', 'modules', '**', '*.entity.{js,ts}'), join(__dirname, '..', 'common', '**', '*.entity.{js,ts}')];

/** How long a request for a new PostgreSQL connection may wait, for every pool the app opens. */
export const CONNECT_TIMEOUT_MS = 5000;

/** `namedStatements`: the hot statements marked `prepared()` run as named prepared statements (pool-client.ts). */
export function dataSourceOptions(url: string, namedStatements = false): PostgresDataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: [join(MIGRATIONS_DIR, '*.{js,ts}')],
    namingStrategy: new SnakeNamingStrategy(),
    synchronize: false,
    migrationsRun: false,
    extra: { max: 20, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, Client: PoolClient, namedStatements },
  };
}

// An arbitrary constant: the advisory lock that serialises migrations of concurrently starting processes.
const MIGRATION_LOCK = 7_203_318_451;

/**
 * Applies pending migrations; API and worker processes may start together, so they take turns.
 * `appCrypto` (AppCrypto under APP_SECRET) is lent to migrations that encrypt stored data. `only`, when
 * given, replaces the migrations directory (a migration's test holds a database at the schema before it).
 */
export async function runMigrations(url: string, appCrypto?: object, only?: DataSourceOptions['migrations']): Promise<string[]> {
  const dataSource = Object.assign(new DataSource({ ...dataSourceOptions(url), ...(only ? { migrations: only } : {}) }), { appCrypto });
  await dataSource.initialize();
  const runner = dataSource.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
    await dataSource.destroy();
  }
}
