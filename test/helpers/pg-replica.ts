import { execFile } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './ports';

const run = promisify(execFile);
const SERVER_ROOT = '/usr/lib/postgresql';

/** The newest of the distribution's PostgreSQL server binaries (not on PATH). */
function binaries(): string {
  const versions = existsSync(SERVER_ROOT) ? readdirSync(SERVER_ROOT).filter((v) => existsSync(join(SERVER_ROOT, v, 'bin', 'initdb'))) : [];
  if (!versions.length) throw new Error(`no PostgreSQL server binaries under ${SERVER_ROOT}`);
  return join(SERVER_ROOT, versions.sort((a, b) => Number(b) - Number(a))[0], 'bin');
}

/** As root, the servers run as the `postgres` OS user: initdb and postgres refuse root. */
function serverUser(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * A PostgreSQL primary and a streaming replica of its own (pg_basebackup -R), on free loopback ports in a
 * temporary directory, for tests that stop the replica or pause its replay; never the shared server. Both
 * log every statement with the client's application name (`log_statement = all`), so that a test can tell
 * which server a request read from, at once (the statistics views lag by up to seconds).
 */
export class PrimaryAndReplica {
  private readonly bin = binaries();
  private readonly user = serverUser();

  private constructor(
    private readonly dir: string,
    readonly primaryPort: number,
    readonly replicaPort: number,
  ) {}

  /** initdb, the primary, a base backup of it as a standby, the standby; about 5 s. */
  static async start(): Promise<PrimaryAndReplica> {
    const dir = mkdtempSync(join(tmpdir(), 'pm-replica-'));
    const pair = new PrimaryAndReplica(dir, await freePort(), await freePort());
    try {
      await pair.init();
    } catch (err) {
      await pair.stop();
      throw err;
    }
    return pair;
  }

  primaryUrl(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.primaryPort}/${database}`;
  }

  replicaUrl(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.replicaPort}/${database}`;
  }

  /** What each server has logged so far (every statement, prefixed `<application_name>:`). */
  primaryLog(): string {
    return readFileSync(join(this.dir, 'primary.log'), 'utf8');
  }

  replicaLog(): string {
    return readFileSync(join(this.dir, 'replica.log'), 'utf8');
  }

  /** A fast shutdown of the replica: its clients are disconnected, then it refuses connections. */
  async stopReplica(): Promise<void> {
    await this.ctl('replica', 'stop', '-m', 'fast');
  }

  /** Starts the replica again; it resumes streaming from where it stopped. */
  async startReplica(): Promise<void> {
    await this.ctl('replica', 'start', '-l', join(this.dir, 'replica.log'), '-o', `-p ${this.replicaPort}`);
  }

  /** Runs one statement on a server as the superuser (pg_wal_replay_pause() on the replica, …); answers its rows. */
  async query<R extends object = Record<string, unknown>>(
    server: 'primary' | 'replica',
    sql: string,
    params: unknown[] = [],
    database = 'postgres',
  ): Promise<R[]> {
    const client = new Client({ connectionString: server === 'primary' ? this.primaryUrl(database) : this.replicaUrl(database) });
    await client.connect();
    try {
      return (await client.query<R>(sql, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** Stops both servers (immediately: nothing in them is kept) and removes their directory. */
  async stop(): Promise<void> {
    for (const server of ['replica', 'primary'] as const) {
      if (existsSync(join(this.dir, server, 'postmaster.pid'))) await this.ctl(server, 'stop', '-m', 'immediate').catch(() => undefined);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async init(): Promise<void> {
    if (this.user.uid !== undefined) chownSync(this.dir, this.user.uid, this.user.gid);
    const primary = join(this.dir, 'primary');
    await this.exec('initdb', ['-D', primary, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    appendFileSync(
      join(primary, 'postgresql.conf'),
      [
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${this.dir}'`,
        'fsync = off',
        'shared_buffers = 32MB',
        'max_connections = 80',
        // A stopped replica catches up from the primary's WAL without a slot.
        'wal_keep_size = 256MB',
        "log_statement = 'all'",
        "log_line_prefix = '%m [%p] %a: '",
        '',
      ].join('\n'),
    );
    await this.ctl('primary', 'start', '-l', join(this.dir, 'primary.log'), '-o', `-p ${this.primaryPort}`);
    const replica = join(this.dir, 'replica');
    // -R writes standby.signal and primary_conninfo: the copy starts as a hot standby streaming from the primary.
    await this.exec('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(this.primaryPort),
      '-U',
      'postgres',
      '-D',
      replica,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '--no-sync',
    ]);
    await this.startReplica();
  }

  private ctl(server: 'primary' | 'replica', action: string, ...args: string[]): Promise<void> {
    return this.exec('pg_ctl', ['-D', join(this.dir, server), '-w', '-t', '60', ...args, action]);
  }

  private async exec(binary: string, args: string[]): Promise<void> {
    try {
      await run(join(this.bin, binary), args, { ...this.user, cwd: this.dir, env: { ...process.env, PGAPPNAME: 'pg-replica-helper' } });
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(`${binary} ${args.join(' ')} failed: ${e.stderr?.trim() || e.message}`);
    }
  }
}
