import { Client } from 'pg';
import { runMigrations } from '../../src/database/database-options';
import { call, type Problem } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { LogCapture } from '../helpers/log-capture';
import { useApp } from '../helpers/use-app';

/** PostgreSQL going away mid-life: 503 service_unavailable (never a 500, never a hang), then recovery. */
describe('PostgreSQL unavailable', () => {
  const admin = new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
  const database = `${process.env.TEST_DATABASE_NAME}_down`;
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${database}`;
  const capture = new LogCapture();

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await runMigrations(url.toString());
    capture.start();
  });
  // no key cache, so that every request needs the database; the log as an operator reads it
  const suite = useApp({ DATABASE_URL: url.toString(), AUTH_CACHE_TTL_SECONDS: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json' });

  afterAll(async () => {
    capture.stop();
    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('answers 503 while the database refuses connections, and recovers', async () => {
    expect((await suite.api().get('/api/v1/settings/practice')).status).toBe(200);

    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [database]);

    const down = await suite.api().get('/api/v1/settings/practice');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(down.text).not.toMatch(/accepting connections|terminat|postgres/i);
    const ready = await call<Problem>(suite.app, 'GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.code).toBe('service_unavailable');

    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    expect((await suite.api().get('/api/v1/settings/practice')).status).toBe(200);
    expect((await call(suite.app, 'GET', '/health/ready')).status).toBe(200);
  });

  it('logs the request pool losing the database once and regaining it once, and no error', async () => {
    const settings = async (): Promise<number> => (await suite.api().get('/api/v1/settings/practice')).status;
    expect(await settings()).toBe(200);
    const from = capture.lines.length;
    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [database]);
    const down: number[] = [];
    for (let i = 0; i < 10; i++) down.push(await settings());
    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    expect(await settings()).toBe(200);
    expect(new Set(down)).toEqual(new Set([503]));

    // Each role that lost the database (the request pool; the audit writer's connection if it held one) is
    // back once it connects again: the audit writer at its next flush.
    type Line = { level: number; msg: string; role?: string; state?: string };
    const lines = await eventually(async () => {
      const all = capture.lines.slice(from).map((l) => JSON.parse(l) as Line);
      const others = all.filter((l) => l.msg !== 'request completed');
      const roles = (state: string): string[] => others.filter((l) => l.state === state).map((l) => l.role ?? '');
      expect(roles('down')).toContain('queries');
      expect(roles('up').sort()).toEqual(roles('down').sort());
      return all;
    });
    const others = lines.filter((l) => l.msg !== 'request completed');
    // Listed, so that a failure names the line that was not expected.
    expect(
      others.filter((l) => !(l.level === (l.state === 'down' ? 40 : 30) && /^postgres (unreachable|reachable again) \(/.test(l.msg))),
    ).toEqual([]);
    expect(new Set(others.map((l) => `${l.role} ${l.state}`)).size).toBe(others.length); // once each
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });
});
