import { Client } from 'pg';
import { runMigrations } from '../../src/database/database-options';
import { runCli } from '../helpers/cli';
import { eventually } from '../helpers/eventually';
import { NO_RATE_LIMITS } from '../helpers/patients';
import { BuiltProcess, sleep } from '../helpers/processes';
import { freePort } from '../helpers/ports';
import { SmtpReceiver } from '../helpers/smtp-receiver';

/**
 * PostgreSQL restarting under load, as the built API and a separate worker live it: every connection either
 * holds is cut (what a restart does to its clients) while requests, audit flushes and email sends run. Both
 * processes must stay up, serve within 2 s of the database's return, and send nothing twice that they had
 * handed to the relay.
 */
describe('PostgreSQL restarting under load', () => {
  // Built processes on a database of their own: its connections are cut, the shared one's never.
  const admin = new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
  const database = `${process.env.TEST_DATABASE_NAME}_restart`;
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${database}`;
  let receiver: SmtpReceiver;
  let api: BuiltProcess;
  let worker: BuiltProcess;
  let base: string;
  let workerBase: string;
  let key: string;

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await runMigrations(url.toString());
    receiver = await new SmtpReceiver().start();
    const [port, healthPort] = [await freePort(), await freePort()];
    base = `http://127.0.0.1:${port}`;
    workerBase = `http://127.0.0.1:${healthPort}`;
    const env = {
      ...NO_RATE_LIMITS,
      DATABASE_URL: url.toString(),
      MIGRATIONS_RUN: 'false',
      SMTP_URL: receiver.url,
      TEST_SMTP_URL: receiver.url,
      EMAIL_RETRY_BASE_MS: '200',
      EMAIL_MAX_ATTEMPTS: '20',
      // An audit COPY is almost always in flight: a connection the pool lent out when the server goes.
      AUDIT_FLUSH_INTERVAL_MS: '10',
      AUTH_CACHE_TTL_SECONDS: '0',
      REDIS_PREFIX: `${process.env.REDIS_PREFIX}:pg-restart`,
      PORT: String(port),
    };
    api = BuiltProcess.start('main.js', { ...env, WORKERS: 'off' });
    worker = BuiltProcess.start('worker.js', { ...env, WORKER_HEALTH_PORT: String(healthPort) });
    await api.waitUntilLive(base);
    await eventually(async () => expect((await fetch(`${workerBase}/health/ready`).catch(() => undefined))?.status).toBe(200), 90_000);
    const created = await runCli(['tenants:create', '--name', 'Restart Clinic'], { DATABASE_URL: url.toString(), MIGRATIONS_RUN: 'false' });
    expect(created.code).toBe(0);
    key = (JSON.parse(created.stdout) as { apiKeys: { key: string }[] }).apiKeys[0].key;
  }, 180_000);

  afterAll(async () => {
    await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`).catch(() => undefined);
    await api?.stop('SIGTERM');
    await worker?.stop('SIGTERM');
    await receiver?.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  const request = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }).catch(() => undefined);
    return res ? { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> } : { status: 0, body: {} };
  };

  it('keeps both processes up, serving within 2 s of each return, and sends every accepted email once', async () => {
    const accepted: string[] = [];
    let sent = 0;
    let running = true;
    const load = async (): Promise<void> => {
      while (running) {
        const res = await request('POST', '/emails/send', { to: `restart${++sent}@example.test`, subject: 'Restart', textContent: 'x' });
        if (res.status === 202) accepted.push(res.body.messageId as string);
        await request('GET', '/patients?limit=5');
      }
    };
    const clients = [load(), load(), load(), load()];

    try {
      for (let restart = 0; restart < 3; restart++) {
        await sleep(1_000);
        await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
        await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, [database]);
        await sleep(1_500);
        await admin.query(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
        const back = Date.now();
        await eventually(async () => {
          expect((await fetch(`${base}/health/ready`)).status).toBe(200);
          expect((await fetch(`${workerBase}/health/ready`)).status).toBe(200);
          expect((await request('GET', '/patients?limit=1')).status).toBe(200);
        }, 2_000);
        expect(Date.now() - back).toBeLessThan(2_000);
        expect([api.running, worker.running]).toEqual([true, true]);
      }
    } finally {
      running = false;
      await Promise.all(clients);
    }

    expect(accepted.length).toBeGreaterThan(20);
    await eventually(async () => {
      const missing = accepted.filter((id) => receiver.byMessageId(id).length === 0);
      expect(missing).toEqual([]);
    }, 60_000);
    const twice = accepted.filter((id) => receiver.byMessageId(id).length > 1);
    expect(twice).toEqual([]);
    // The receiver has each message a moment before the sender records it sent.
    for (const id of accepted.slice(-5)) {
      await eventually(async () => expect((await request('GET', `/emails/messages/${id}`)).body).toMatchObject({ status: 'sent' }), 10_000);
    }
    expect([api.running, worker.running]).toEqual([true, true]);
    expect(api.output + worker.output).not.toMatch(/Unhandled 'error' event|Emitted 'error' event/);
  }, 180_000);
});
