import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { client, createTenant, startApp, TestTenant } from '../helpers/app';
import { runCli } from '../helpers/cli';

/** The operator CLI, run as operators run it: `node dist/cli.js …` in a child process. */
describe('CLI (dist/cli.js)', () => {
  let app: NestFastifyApplication;
  let tenant: TestTenant;

  beforeAll(async () => {
    app = await startApp();
    tenant = await createTenant(app);
  }, 180_000);
  afterAll(() => app.close());

  describe('keys:create', () => {
    it('issues an OWNER key of the mode asked for, printing one JSON object like tenants:create and nothing else', async () => {
      const run = await runCli(['keys:create', '--tenant', tenant.id, '--mode', 'live']);
      expect(run.code).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      const printed = JSON.parse(lines[0]);
      expect(printed).toEqual({
        tenant: { id: tenant.id, name: tenant.name },
        apiKeys: [{ id: expect.any(String), mode: 'live', role: 'OWNER', key: expect.stringMatching(/^sk_live_[A-Za-z0-9]{32,}$/) }],
      });
      const me = await client(app, printed.apiKeys[0].key).get('/api/v1/me');
      expect(me.status).toBe(200);
      expect(me.body.tenant).toEqual({ id: tenant.id, name: tenant.name });
      expect(me.body.key).toMatchObject({ id: printed.apiKeys[0].id, mode: 'live', role: 'OWNER', scopes: null });
    });

    it('takes --role', async () => {
      const run = await runCli(['keys:create', '--tenant', tenant.id, '--mode', 'test', '--role', 'STAFF']);
      expect(run.code).toBe(0);
      const key = JSON.parse(run.stdout).apiKeys[0];
      expect(key).toMatchObject({ mode: 'test', role: 'STAFF', key: expect.stringMatching(/^sk_test_/) });
      expect((await client(app, key.key).get('/api/v1/me')).body.key.role).toBe('STAFF');
    });

    it.each([
      [
        'an unknown tenant',
        ['--tenant', '00000000-0000-4000-8000-000000000000', '--mode', 'test'],
        'error: no tenant 00000000-0000-4000-8000-000000000000',
      ],
      ['a malformed tenant id', ['--tenant', 'acme', '--mode', 'test'], 'error: no tenant acme'],
      ['a bad mode', ['--tenant', '00000000-0000-4000-8000-000000000000', '--mode', 'prod'], 'error: --mode must be test or live'],
      ['no mode', ['--tenant', '00000000-0000-4000-8000-000000000000'], 'error: --mode must be test or live'],
      [
        'a bad role',
        ['--tenant', '00000000-0000-4000-8000-000000000000', '--mode', 'test', '--role', 'ROOT'],
        'error: --role must be OWNER, ADMIN or STAFF',
      ],
      ['no tenant', ['--mode', 'test'], 'error: --tenant is required'],
    ])('refuses %s with one line on stderr, nothing on stdout and a non-zero exit', async (_case, args, line) => {
      const run = await runCli(['keys:create', ...args]);
      expect(run.code).not.toBe(0);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd()).toBe(line);
    });
  });

  describe('migrations:run', () => {
    const admin = (): Client => new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
    const database = `${process.env.TEST_DATABASE_NAME}_cli`;
    const url = (): string => {
      const u = new URL(process.env.DATABASE_URL!);
      u.pathname = `/${database}`;
      return u.toString();
    };

    beforeAll(async () => {
      const c = admin();
      await c.connect();
      await c.query(`CREATE DATABASE ${database}`);
      await c.end();
    });
    afterAll(async () => {
      const c = admin();
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await c.end();
    });

    it('migrates an empty database even with MIGRATIONS_RUN=false, and applies nothing the second time', async () => {
      const first = await runCli(['migrations:run'], { DATABASE_URL: url(), MIGRATIONS_RUN: 'false' });
      expect(first.code).toBe(0);
      const applied = JSON.parse(first.stdout).migrated as string[];
      expect(applied).toEqual(expect.arrayContaining(['Foundation1763700000000', 'Patients1763800000000']));

      const db = new Client({ connectionString: url() });
      await db.connect();
      try {
        const { rows } = await db.query(`SELECT count(*)::int AS n FROM migrations`);
        expect(rows[0].n).toBe(applied.length);
        await expect(db.query('SELECT 1 FROM patients LIMIT 1')).resolves.toBeDefined();
      } finally {
        await db.end();
      }

      const again = await runCli(['migrations:run'], { DATABASE_URL: url(), MIGRATIONS_RUN: 'false' });
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({ migrated: [] });
    }, 120_000); // two cold CLI starts and every migration: over 30 s when the shared machine is busy
  });
});
