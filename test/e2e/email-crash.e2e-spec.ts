import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { client, createTenant, dataSource, startApp, TestTenant } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { SmtpReceiver } from '../helpers/smtp-receiver';

/**
 * The send worker as its own process (`node dist/worker.js`, as deployed), stopped in the middle of a
 * batch: gracefully (SIGTERM: its in-flight sends finish and are recorded) and brutally (SIGKILL while
 * messages sit at the worst moment, handed to the SMTP server with its answer not yet recorded). After a
 * restart every message has reached the receiver exactly once. The run's set-up builds `dist/`.
 */
const WORKER = join(__dirname, '..', '..', 'dist', 'worker.js');
const MESSAGES = 150;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function startWorker(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let output = '';
  const child = spawn(process.execPath, [WORKER], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn', QUEUE_LOCK_SECONDS: '2', QUEUE_STALLED_CHECK_SECONDS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer): void => void (output = (output + chunk.toString()).slice(-4000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Waits until `count()` stops growing for `quietMs`. */
async function whenStill(count: () => number, quietMs: number): Promise<void> {
  let last = -1;
  while (count() !== last) {
    last = count();
    await sleep(quietMs);
  }
}

describe('Email sending survives its worker being stopped and killed mid-batch (dist/worker.js)', () => {
  const prefix = `${process.env.REDIS_PREFIX}:email-crash`;
  let receiver: SmtpReceiver;
  let api: NestFastifyApplication;
  let tenant: TestTenant;
  const workers: ReturnType<typeof startWorker>[] = [];

  beforeAll(async () => {
    if (!existsSync(WORKER)) throw new Error('dist/worker.js is missing: run `npm run build`');
    receiver = await new SmtpReceiver().start();
    // The API queues; only the child processes send.
    api = await startApp({ ...NO_RATE_LIMITS, WORKERS: 'off', SMTP_URL: receiver.url, REDIS_PREFIX: prefix });
    tenant = await createTenant(api);
  });
  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await api.close();
    await receiver.stop();
  });

  it('delivers every message exactly once', async () => {
    const patient = await createPatient(api, tenant.testKey, { email: 'batch@example.test' });
    const ids: string[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      const res = await client(api, tenant.testKey).post('/api/v1/emails/send', {
        patientId: patient.id,
        subject: `Batch ${i}`,
        textContent: `Message ${i}`,
      });
      expect(res.status).toBe(202);
      ids.push(res.body.messageId);
    }
    const env = { SMTP_URL: receiver.url, REDIS_PREFIX: prefix };
    const statusOf = async (): Promise<Map<string, { status: string; lastError: string | null }>> => {
      const rows: { id: string; status: string; last_error: string | null }[] = await dataSource(api).query(
        `SELECT id, status, last_error FROM email_messages WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      return new Map(rows.map((r) => [r.id, { status: r.status, lastError: r.last_error }]));
    };

    // 1. SIGTERM with sends in flight (the server holds its answers): they finish and are recorded, confirmed.
    const first = startWorker(env);
    workers.push(first);
    await eventually(() => Promise.resolve(expect(receiver.received.length).toBeGreaterThanOrEqual(5)), 120_000).catch((err) => {
      throw new Error(`${String(err)}\nworker output: ${first.output()}`);
    });
    receiver.hold();
    await whenStill(() => receiver.received.length, 300);
    const inFlightAtTerm = [...(await statusOf()).entries()].filter(([, s]) => s.status === 'sending').map(([id]) => id);
    expect(inFlightAtTerm.length).toBeGreaterThan(0);
    first.child.kill('SIGTERM');
    await sleep(300);
    receiver.release();
    expect(await first.exited).toBe(0);
    const afterTerm = await statusOf();
    for (const id of inFlightAtTerm) expect({ id, ...afterTerm.get(id) }).toEqual({ id, status: 'sent', lastError: null });

    // 2. SIGKILL while messages are handed over and their answers held back: the worst moment.
    const second = startWorker(env);
    workers.push(second);
    const before = receiver.received.length;
    await eventually(() => Promise.resolve(expect(receiver.received.length).toBeGreaterThanOrEqual(before + 5)), 120_000);
    receiver.hold();
    await whenStill(() => receiver.received.length, 300);
    const handedOver = [...(await statusOf()).entries()].filter(([, s]) => s.status === 'sending').map(([id]) => id);
    expect(handedOver.length).toBeGreaterThan(0);
    second.child.kill('SIGKILL');
    await second.exited;
    receiver.release();
    const unfinished = [...(await statusOf()).values()].filter((s) => s.status === 'queued').length;
    expect(unfinished).toBeGreaterThan(0); // the kill did land mid-batch

    // 3. A fresh worker finishes the batch; the killed one's jobs are found stalled and resolved from their rows.
    const third = startWorker(env);
    workers.push(third);
    const final = await eventually(async () => {
      const statuses = await statusOf();
      expect([...statuses.values()].filter((s) => s.status !== 'sent')).toEqual([]);
      return statuses;
    }, 120_000);
    third.child.kill('SIGTERM');
    expect(await third.exited).toBe(0);

    const counts = ids.map((id) => receiver.byMessageId(id).length);
    expect({ missing: ids.filter((_, i) => counts[i] === 0), duplicated: ids.filter((_, i) => counts[i] > 1) }).toEqual({
      missing: [],
      duplicated: [],
    });
    // The ones handed over when the worker died were not sent again: recorded as sent, unconfirmed.
    for (const id of handedOver) expect(final.get(id)!.lastError).toMatch(/^unconfirmed: the worker stopped/);
  }, 420_000);
});
