import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { MigrationInterface } from 'typeorm';
import { AppCrypto } from '../../src/common/crypto/app-crypto';
import { runMigrations } from '../../src/database/database-options';

const MIGRATIONS_DIR = join(__dirname, '..', '..', 'migrations');

export type MigrationClass = new () => MigrationInterface;

/**
 * The migrations older than `timestamp`: given to runMigrations as `only`, they give the schema a later
 * migration starts from.
 */
export async function migrationsBefore(timestamp: number): Promise<MigrationClass[]> {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((file) => file.endsWith('.ts') && Number(file.split('-')[0]) < timestamp)
    .sort();
  const modules = await Promise.all(files.map((file) => import(join(MIGRATIONS_DIR, file)) as Promise<Record<string, MigrationClass>>));
  return modules.map((m) => Object.values(m)[0]);
}

/** A database of the test run's own, `<run's database>_<suffix>`: created, and its URL; `drop` removes it. */
export async function scratchDatabase(suffix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const database = `${process.env.TEST_DATABASE_NAME}_${suffix}`;
  const admin = async (sql: string): Promise<void> => {
    const c = new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${database}`);
  const u = new URL(process.env.TEST_ADMIN_DATABASE_URL!);
  u.pathname = `/${database}`;
  return { url: u.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`) };
}

/** A scratch database held at the schema before a migration, as `useSchemaBefore` gives it to a suite. */
export interface SchemaBefore {
  /** Connected to it from the suite's beforeAll on. */
  db: Client;
  /** Applies the migrations still pending: the one under test, and any after it. */
  migrate(): Promise<string[]>;
}

/**
 * For a migration's suite (no app, so not useApp): a database of its own (`suffix`) migrated to the schema
 * before `timestamp` in beforeAll, with a client of it; both gone after the suite.
 */
export function useSchemaBefore(timestamp: number, suffix: string): SchemaBefore {
  const held = {} as SchemaBefore;
  let scratch: Awaited<ReturnType<typeof scratchDatabase>> | undefined;
  beforeAll(async () => {
    scratch = await scratchDatabase(suffix);
    const { url } = scratch;
    const crypto = new AppCrypto(process.env.APP_SECRET!);
    await runMigrations(url, crypto, await migrationsBefore(timestamp));
    held.migrate = () => runMigrations(url, crypto);
    held.db = new Client({ connectionString: url });
    await held.db.connect();
  });
  afterAll(async () => {
    await held.db?.end();
    await scratch?.drop();
  });
  return held;
}
