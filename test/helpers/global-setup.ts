import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import { AppCrypto } from '../../src/common/crypto/app-crypto';
import { runMigrations } from '../../src/database/database-options';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { resolveDefaultRedis } from '../../src/common/redis/redis-server';
import { buildIfStale } from '../../scripts/build-if-stale';

async function answers(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const ROOT = join(__dirname, '..', '..');

function workerUrl(url: URL, database: string): string {
  const copy = new URL(url);
  copy.pathname = `/${database}`;
  return copy.toString();
}

/**
 * Fresh PostgreSQL databases and Redis key prefixes per test run, on the local services (or the embedded
 * ones when none answers): the run's database is migrated once here (test apps skip migrations), then
 * copied once per Jest worker, so that suites running at the same time share no data, no queues and no
 * periodic jobs (each worker takes its own in worker-env.ts).
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  const log = (line: string): void => void process.stderr.write(`[test setup] ${line}\n`);
  // Several suites run the built servers and CLI (`dist/`), as operators do: built here when missing or
  // older than the sources, so that `npm test` on a fresh clone needs nothing run first.
  buildIfStale(ROOT, log);
  let adminUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  if (!(await answers(adminUrl))) {
    log(`no PostgreSQL at ${adminUrl}; starting the embedded one`);
    const embedded = await startEmbeddedPostgres('.data', 54329, log);
    adminUrl = embedded.url;
    // Stopped by the teardown (which runs in this process): it runs in a process group of its own.
    (globalThis as { stopEmbeddedPostgres?: () => Promise<void> }).stopEmbeddedPostgres = () => embedded.stop();
  }
  const run = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  const database = `pm_test_${run}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;

  const redisUrl = process.env.REDIS_URL ?? (await resolveDefaultRedis(log)).url;

  process.env.TEST_ADMIN_DATABASE_URL = adminUrl;
  process.env.TEST_DATABASE_NAME = database;
  process.env.DATABASE_URL = url.toString();
  process.env.REDIS_URL = redisUrl;
  process.env.REDIS_PREFIX = `pmtest:${run}`;
  process.env.MIGRATIONS_RUN = 'false';
  // One secret for the run: test apps and the built servers they spawn open each other's ciphertexts.
  process.env.APP_SECRET ??= randomBytes(32).toString('base64url');
  process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'silent';
  // Every suite shares one key per tenant and the IP 127.0.0.1: generous limits for the run, so that only
  // the rate-limit suites (which set small ones per app) meet a 429.
  for (const name of ['TEST', 'LIVE', 'IP']) {
    process.env[`RATE_LIMIT_${name}_PER_SECOND`] ??= '100000';
    process.env[`RATE_LIMIT_${name}_PER_HOUR`] ??= '10000000';
  }
  process.env.RATE_LIMIT_TEST_PER_DAY ??= '100000000';
  await runMigrations(url.toString(), new AppCrypto(process.env.APP_SECRET));
  const workers = Math.max(1, globalConfig.maxWorkers);
  process.env.TEST_WORKER_DATABASES = String(workers);
  const copies = new Client({ connectionString: adminUrl });
  await copies.connect();
  for (let worker = 1; worker <= workers; worker++) {
    await copies.query(`CREATE DATABASE ${database}_w${worker} TEMPLATE ${database}`);
    // TypeORM records generated columns under the database's name: the copy's is its own.
    const copy = new Client({ connectionString: workerUrl(url, `${database}_w${worker}`) });
    await copy.connect();
    await copy.query(`UPDATE typeorm_metadata SET database = current_database() WHERE database = $1`, [database]);
    await copy.end();
  }
  await copies.end();
}
