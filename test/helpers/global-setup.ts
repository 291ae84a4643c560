import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { AppCrypto } from '../../src/common/crypto/app-crypto';
import { runMigrations } from '../../src/database/database-options';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { resolveDefaultRedis } from '../../src/common/redis/redis-server';

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
const BUILT = ['dist/main.js', 'dist/worker.js', 'dist/cli.js', 'dist/healthcheck.js', 'dist/migrations'];
const SOURCES = ['src', 'migrations', 'package.json', 'nest-cli.json', 'tsconfig.json', 'tsconfig.build.json', 'tsconfig.migrations.json'];

/** The newest modification time under `path` (a file or a directory), in ms. */
function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

/**
 * Several suites run the built servers and CLI (`dist/`), as operators do: build it when it is missing or
 * older than the sources, so that `npm test` on a fresh clone needs nothing run first. A build replaces
 * the whole of `dist/` (nest-cli.json's deleteOutDir), so `dist/main.js` dates it.
 */
function ensureBuilt(log: (line: string) => void): void {
  const missing = BUILT.find((path) => !existsSync(join(ROOT, path)));
  const stale = !missing && SOURCES.find((path) => newest(join(ROOT, path)) > statSync(join(ROOT, 'dist/main.js')).mtimeMs);
  if (!missing && !stale) return;
  log(missing ? `${missing} is missing: building (npm run build)` : `${stale} is newer than dist/: building (npm run build)`);
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
}

/**
 * One fresh PostgreSQL database and one fresh Redis key prefix per test run, on the local services
 * (or the embedded ones when none answers). Migrations run once here; test apps skip them.
 */
export default async function globalSetup(): Promise<void> {
  const log = (line: string): void => void process.stderr.write(`[test setup] ${line}\n`);
  ensureBuilt(log);
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
}
