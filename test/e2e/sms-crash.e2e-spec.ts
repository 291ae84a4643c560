import { dataSource } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { FakeTwilio } from '../helpers/fake-twilio';
import { NO_RATE_LIMITS } from '../helpers/patients';
import { BuiltProcess, sleep } from '../helpers/processes';
import { useApp } from '../helpers/use-app';

/**
 * The SMS worker as its own process (`node dist/worker.js`, as deployed), killed with SIGKILL while
 * messages are due and some of its requests are on their way to the provider, unanswered. After a restart
 * every message reaches the provider exactly once: the killed worker's `sending` messages are sent again
 * by their jobs once their locks lapse, and the ones it had not taken are sent by the new worker. The
 * run's set-up builds `dist/`.
 */
const MESSAGES = 300;
/** Accepted before the fake starts holding every request, as a provider that stopped answering would. */
const ACCEPTED_FIRST = 60;
const LOCK_SECONDS = 2;
const STALLED_CHECK_SECONDS = 1;

describe('SMS sending survives its worker being killed while messages are due (dist/worker.js)', () => {
  const prefix = `${process.env.REDIS_PREFIX}:sms-crash`;
  let fake: FakeTwilio;
  const workers: BuiltProcess[] = [];

  beforeAll(async () => {
    fake = await new FakeTwilio().start();
  });
  // The API queues; only the child processes send.
  const suite = useApp(() => ({ ...NO_RATE_LIMITS, ...fake.env(), WORKERS: 'off', REDIS_PREFIX: prefix }));
  suite.onClose(async () => {
    for (const w of workers) if (w.running) await w.stop('SIGKILL');
  });
  afterAll(async () => {
    await fake.stop();
  });

  const startWorker = (): BuiltProcess => {
    const worker = BuiltProcess.start('worker.js', {
      ...fake.env(),
      REDIS_PREFIX: prefix,
      QUEUE_LOCK_SECONDS: String(LOCK_SECONDS),
      QUEUE_STALLED_CHECK_SECONDS: String(STALLED_CHECK_SECONDS),
    });
    workers.push(worker);
    return worker;
  };

  it('sends each message exactly once across a SIGKILL with requests in flight', async () => {
    const ids: string[] = [];
    for (let i = 0; i < MESSAGES; i += 20) {
      const sent = await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          suite.api(suite.tenant.liveKey).post<{ messageId: string }>('/api/v1/sms/send', { to: '+12025550199', body: `Due ${i + j}` }),
        ),
      );
      for (const res of sent) {
        expect(res.status).toBe(202);
        ids.push(res.body.messageId);
      }
    }
    const statuses = async (): Promise<Map<string, string>> => {
      const rows: { id: string; status: string }[] = await dataSource(suite.app).query(
        `SELECT id, status FROM sms_messages WHERE id = ANY($1::uuid[])`,
        [ids],
      );
      return new Map(rows.map((r) => [r.id, r.status]));
    };
    const sending = async (): Promise<string[]> => [...(await statuses()).entries()].filter(([, s]) => s === 'sending').map(([id]) => id);

    // The provider accepts a first batch, then holds every request without answering.
    fake.answer = () => (fake.received.length < ACCEPTED_FIRST ? { accept: true } : { accept: true, delayMs: 5_000 });
    const first = startWorker();
    await eventually(async () => expect(fake.received.length).toBe(ACCEPTED_FIRST), 90_000).catch((err) => {
      throw new Error(`${String(err)}\nworker output: ${first.output}`);
    });
    await eventually(async () => expect((await sending()).length).toBeGreaterThan(0), 30_000);
    await sleep(300);
    const inFlight = await sending();
    expect(fake.requests).toBeGreaterThan(ACCEPTED_FIRST);
    await first.stop('SIGKILL');
    const killedAt = Date.now();

    // The provider answers again; a new worker finishes the batch.
    fake.answer = () => ({ accept: true });
    const second = startWorker();
    await eventually(async () => {
      const all = await statuses();
      expect([...all.values()].filter((s) => s !== 'sent')).toEqual([]);
    }, 120_000).catch((err) => {
      throw new Error(`${String(err)}\nworker output: ${second.output}`);
    });
    expect((await second.stop('SIGTERM')).code).toBe(0);

    const copies = new Map<string, number>();
    for (const m of fake.received) copies.set(m.fields.Body, (copies.get(m.fields.Body) ?? 0) + 1);
    const bodies = Array.from({ length: MESSAGES }, (_, i) => `Due ${i}`);
    const lost = bodies.filter((b) => !copies.get(b));
    const duplicated = bodies.filter((b) => (copies.get(b) ?? 0) > 1);
    const resentAfter = fake.received.filter((m) => m.receivedAt >= killedAt).map((m) => m.receivedAt - killedAt);
    process.stdout.write(
      `sms-crash: ${MESSAGES} messages, worker SIGKILLed with ${inFlight.length} in sending (held by the provider): ` +
        `lost ${lost.length}, duplicated ${duplicated.length}; the rest sent ${Math.min(...resentAfter)}-${Math.max(...resentAfter)} ms after the kill\n`,
    );
    expect(inFlight.length).toBeGreaterThan(0);
    expect(lost).toEqual([]);
    expect(duplicated).toEqual([]);
    expect(fake.received).toHaveLength(MESSAGES);
    // Sent again by their own jobs: each carries the sid of its single acceptance.
    const rows: { provider_message_id: string }[] = await dataSource(suite.app).query(
      `SELECT provider_message_id FROM sms_messages WHERE id = ANY($1::uuid[])`,
      [inFlight],
    );
    const sids = new Set(fake.received.map((m) => m.sid));
    for (const row of rows) expect(sids.has(row.provider_message_id)).toBe(true);
  }, 240_000);
});
