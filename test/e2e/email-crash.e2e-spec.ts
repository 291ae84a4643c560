import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { AddressInfo, createServer, connect, Server, Socket } from 'node:net';
import { join } from 'node:path';
import { dataSource } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { SmtpReceiver } from '../helpers/smtp-receiver';
import { useApp } from '../helpers/use-app';

/**
 * The send worker as its own process (`node dist/worker.js`, as deployed), stopped in the middle of a
 * batch: gracefully (SIGTERM: its in-flight sends finish and are recorded) and brutally, twice (SIGKILL:
 * once while its sends sit unfinished on the wire, once at whatever moment the batch has reached). After a
 * restart every message has reached the receiver; a message reaches it twice only when its worker died
 * between the server's acceptance and its record. The run's set-up builds `dist/`.
 */
const WORKER = join(__dirname, '..', '..', 'dist', 'worker.js');
const MESSAGES = 1_000;
/** The killed worker's jobs are found stalled this fast (the default is 30 s and 15 s). */
const LOCK_SECONDS = 2;
const STALLED_CHECK_SECONDS = 1;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function startWorker(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let output = '';
  const child = spawn(process.execPath, [WORKER], {
    env: {
      ...process.env,
      ...env,
      LOG_LEVEL: 'warn',
      QUEUE_LOCK_SECONDS: String(LOCK_SECONDS),
      QUEUE_STALLED_CHECK_SECONDS: String(STALLED_CHECK_SECONDS),
    },
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

/**
 * A TCP relay between the worker and the SMTP receiver. `freeze()` holds back everything the worker
 * writes on the connections open then or opened later (the server's replies still flow), and bytes held
 * when the worker's side closes are dropped: what a worker that dies before its writes left the machine
 * looks like to the server. `thaw()` lets connections opened afterwards through.
 */
class FreezableLink {
  private server!: Server;
  private frozen = false;
  private readonly pipes = new Set<{ frozen: boolean }>();

  async start(targetPort: number): Promise<this> {
    this.server = createServer((worker) => this.pipe(worker, connect(targetPort, '127.0.0.1')));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  freeze(): void {
    this.frozen = true;
    for (const pipe of this.pipes) pipe.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private pipe(worker: Socket, upstream: Socket): void {
    const pipe = { frozen: this.frozen };
    let held = 0;
    this.pipes.add(pipe);
    worker.on('data', (chunk: Buffer) => {
      if (pipe.frozen) held += chunk.length;
      else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => worker.write(chunk));
    worker.on('close', () => {
      this.pipes.delete(pipe);
      if (held) upstream.destroy();
      else upstream.end();
    });
    upstream.on('close', () => worker.destroy());
    worker.on('error', () => undefined);
    upstream.on('error', () => undefined);
  }
}

describe('Email sending survives its worker being stopped and killed mid-batch (dist/worker.js)', () => {
  const prefix = `${process.env.REDIS_PREFIX}:email-crash`;
  let receiver: SmtpReceiver;
  let link: FreezableLink;
  const workers: ReturnType<typeof startWorker>[] = [];

  beforeAll(async () => {
    if (!existsSync(WORKER)) throw new Error('dist/worker.js is missing: run `npm run build`');
    receiver = await new SmtpReceiver().start();
    link = await new FreezableLink().start(receiver.port);
  });
  // The API queues; only the child processes send.
  const suite = useApp(() => ({
    ...NO_RATE_LIMITS,
    WORKERS: 'off',
    SMTP_URL: receiver.url,
    TEST_SMTP_URL: receiver.url,
    REDIS_PREFIX: prefix,
  }));
  suite.onClose(() => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
  });
  afterAll(async () => {
    await link.stop();
    await receiver.stop();
  });

  it('loses no message across a SIGTERM and two SIGKILLs during 1,000 sends', async () => {
    const patient = await createPatient(suite.app, suite.tenant.testKey, { email: 'batch@example.test' });
    const ids: string[] = [];
    for (let i = 0; i < MESSAGES; i += 10) {
      const sent = await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          suite.api().post<{ messageId: string }>('/api/v1/emails/send', {
            patientId: patient.id,
            subject: `Batch ${i + j}`,
            textContent: `Message ${i + j}`,
          }),
        ),
      );
      for (const res of sent) {
        expect(res.status).toBe(202);
        ids.push(res.body.messageId);
      }
    }
    const env = { SMTP_URL: link.url, TEST_SMTP_URL: link.url, REDIS_PREFIX: prefix };
    const statusOf = async (): Promise<Map<string, { status: string; lastError: string | null }>> => {
      const rows: { id: string; status: string; last_error: string | null }[] = await dataSource(suite.app).query(
        `SELECT id, status, last_error FROM email_messages WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      return new Map(rows.map((r) => [r.id, { status: r.status, lastError: r.last_error }]));
    };
    const sendingNow = async (): Promise<string[]> =>
      [...(await statusOf()).entries()].filter(([, s]) => s.status === 'sending').map(([id]) => id);
    const reach = (count: number, worker: ReturnType<typeof startWorker>): Promise<void> =>
      eventually(() => Promise.resolve(expect(receiver.received.length).toBeGreaterThanOrEqual(count)), 60_000).catch((err) => {
        throw new Error(`${String(err)}\nworker output: ${worker.output()}`);
      });

    // 1. SIGTERM with sends in flight (the server holds its answers): they finish and are recorded.
    const first = startWorker(env);
    workers.push(first);
    await reach(100, first);
    receiver.hold();
    await whenStill(() => receiver.received.length, 300);
    const inFlightAtTerm = await sendingNow();
    expect(inFlightAtTerm.length).toBeGreaterThan(0);
    first.child.kill('SIGTERM');
    await sleep(300);
    receiver.release();
    expect(await first.exited).toBe(0);
    const afterTerm = await statusOf();
    for (const id of inFlightAtTerm) expect({ id, ...afterTerm.get(id) }).toEqual({ id, status: 'sent', lastError: null });

    // 2. SIGKILL while the worker's sends are on their way and none of their ends has reached the server.
    const second = startWorker(env);
    workers.push(second);
    await reach(350, second);
    link.freeze();
    await sleep(500);
    second.child.kill('SIGKILL');
    await second.exited;
    const killedAt = Date.now();
    const cutOff = await sendingNow();
    expect(cutOff.length).toBeGreaterThan(0);
    const receivedBeforeRestart = new Set(receiver.received.map((m) => m.headers['message-id']));
    link.thaw();

    // 3. SIGKILL at whatever moment the batch has reached.
    const third = startWorker(env);
    workers.push(third);
    await reach(700, third);
    third.child.kill('SIGKILL');
    await third.exited;
    const atSecondKill = await sendingNow();
    expect(atSecondKill.length).toBeGreaterThan(0);

    // 4. A fresh worker finishes the batch; the killed ones' jobs are found stalled and sent again.
    const fourth = startWorker(env);
    workers.push(fourth);
    await eventually(async () => {
      const statuses = await statusOf();
      expect([...statuses.values()].filter((s) => s.status !== 'sent')).toEqual([]);
    }, 60_000).catch((err) => {
      throw new Error(`${String(err)}\nworker output: ${fourth.output()}`);
    });
    fourth.child.kill('SIGTERM');
    expect(await fourth.exited).toBe(0);

    const copies = new Map(ids.map((id) => [id, receiver.byMessageId(id)]));
    const lost = ids.filter((id) => copies.get(id)!.length === 0);
    const duplicated = ids.filter((id) => copies.get(id)!.length > 1);
    // The cut-off sends had not reached the server: each arrives once, from the worker that took over.
    const cutOffArrivals = cutOff.map((id) => copies.get(id)!);
    const resentAfterMs = cutOffArrivals.flat().map((m) => m.receivedAt - killedAt);
    process.stdout.write(
      `email-crash: ${MESSAGES} messages, SIGKILLed twice: lost ${lost.length}, duplicated ${duplicated.length} ` +
        `(${atSecondKill.length} in sending at the second kill); the ${cutOff.length} cut off by the first kill ` +
        `were sent again ${resentAfterMs.length ? `${Math.min(...resentAfterMs)}-${Math.max(...resentAfterMs)}` : '(none)'} ms after it ` +
        `(lock ${LOCK_SECONDS} s, stalled check every ${STALLED_CHECK_SECONDS} s)\n`,
    );
    expect(lost).toEqual([]);
    for (const id of cutOff) {
      expect(receivedBeforeRestart.has(copies.get(id)![0]?.headers['message-id'])).toBe(false);
      expect({ id, copies: copies.get(id)!.length }).toEqual({ id, copies: 1 });
    }
    // A duplicate needs a worker to die between the server's acceptance and its record: only messages in
    // flight at a kill can have one, never more than one extra copy.
    const inFlightAtKills = new Set([...cutOff, ...atSecondKill]);
    for (const id of duplicated)
      expect({ id, inFlight: inFlightAtKills.has(id), copies: copies.get(id)!.length }).toEqual({ id, inFlight: true, copies: 2 });
  }, 180_000);
});
