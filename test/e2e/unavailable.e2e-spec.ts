import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { runMigrations } from '../../src/database/database-options';
import { call, client, createTenant, startApp, TestTenant } from '../helpers/app';

/** PostgreSQL going away mid-life: 503 service_unavailable (never a 500, never a hang), then recovery. */
describe('PostgreSQL unavailable', () => {
  const admin = new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
  const database = `${process.env.TEST_DATABASE_NAME}_down`;
  let app: NestFastifyApplication;
  let tenant: TestTenant;

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${database}`;
    await runMigrations(url.toString());
    // no key cache, so that every request needs the database
    app = await startApp({ DATABASE_URL: url.toString(), AUTH_CACHE_TTL_SECONDS: '0' });
    tenant = await createTenant(app);
  });

  afterAll(async () => {
    await app.close();
    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('answers 503 while the database refuses connections, and recovers', async () => {
    expect((await client(app, tenant.testKey).get('/api/v1/settings/practice')).status).toBe(200);

    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [database]);

    const down = await client(app, tenant.testKey).get('/api/v1/settings/practice');
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(down.text).not.toMatch(/accepting connections|terminat|postgres/i);
    const ready = await call(app, 'GET', '/health/ready');
    expect(ready.status).toBe(503);
    expect(ready.body.code).toBe('service_unavailable');

    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    expect((await client(app, tenant.testKey).get('/api/v1/settings/practice')).status).toBe(200);
    expect((await call(app, 'GET', '/health/ready')).status).toBe(200);
  });
});
