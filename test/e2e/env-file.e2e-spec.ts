import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { runCli } from '../helpers/cli';
import { BuiltProcess } from '../helpers/processes';
import { freePort } from '../helpers/ports';

/**
 * `.env` in the working directory, as `cp .env.example .env` leaves it: the API, the worker and the CLI read
 * it, and a variable already in the environment wins over it. Each process runs in a directory of its own
 * holding only that file.
 */
describe('.env in the working directory', () => {
  let dir: string;
  const dotEnv = (lines: string[]): void => writeFileSync(join(dir, '.env'), `# written by the test\n${lines.join('\n')}\n`);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pm-env-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('the API takes PORT from it, and HOST from the environment over it', async () => {
    const port = await freePort();
    // A HOST it could not listen on: had the file's won, start-up would fail.
    dotEnv([`PORT=${port}`, 'HOST=203.0.113.7', 'WORKERS=off']);
    const api = BuiltProcess.start('main.js', { PORT: undefined, HOST: '127.0.0.1', WORKERS: undefined }, { cwd: dir });
    try {
      await api.waitUntilLive(`http://127.0.0.1:${port}`, 45_000);
    } finally {
      await api.stop('SIGTERM');
    }
  }, 60_000);

  it('the worker takes WORKER_HEALTH_PORT from it', async () => {
    const port = await freePort();
    dotEnv([`WORKER_HEALTH_PORT=${port}`]);
    const worker = BuiltProcess.start('worker.js', { WORKER_HEALTH_PORT: undefined, HOST: '127.0.0.1' }, { cwd: dir });
    try {
      await worker.waitUntilLive(`http://127.0.0.1:${port}`, 45_000);
    } finally {
      await worker.stop('SIGTERM');
    }
  }, 60_000);

  it('the CLI takes DATABASE_URL from it, and LOG_LEVEL from the environment over it', async () => {
    // Had the file not been read, the CLI would start an embedded PostgreSQL in DATA_DIR, which cannot be made.
    dotEnv([`DATABASE_URL=${process.env.DATABASE_URL}`, 'LOG_LEVEL=loud']);
    const env = {
      DATABASE_URL: undefined,
      LOG_LEVEL: 'warn',
      DATA_DIR: '/dev/null/no-database',
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
    };
    const run = await runCli(['tenants:create', '--name', 'Dotenv Clinic'], env, { cwd: dir });
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    const { tenant } = JSON.parse(run.stdout) as { tenant: { id: string } };
    const db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query<{ name: string }>('SELECT name FROM tenants WHERE id = $1', [tenant.id]);
      expect(rows).toEqual([{ name: 'Dotenv Clinic' }]);
    } finally {
      await db.end();
    }
  });
});
