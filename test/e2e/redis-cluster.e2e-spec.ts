import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Cluster } from 'ioredis';
import type { Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { RedisService } from '../../src/common/redis/redis.service';
import type { MeDto } from '../../src/modules/api-keys/dto/me.dto';
import type { WebhookWithSecretDto } from '../../src/modules/webhooks/dto/webhook.dto';
import { serveWorkerHealth } from '../../src/worker-health';
import { call, client, createKey, createTenant, type Problem, startApp } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { LogCapture } from '../helpers/log-capture';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { freePort } from '../helpers/ports';
import { sleep } from '../helpers/processes';
import { PrivateRedisCluster } from '../helpers/redis-cluster';
import { useApp } from '../helpers/use-app';
import { WebhookReceiver } from '../helpers/webhook-receiver';

const PRACTICE = '/api/v1/settings/practice';
const KEYS = '/api/v1/settings/portal-access-keys';
const LIVE_PER_HOUR = 5;

/** A worker's readiness, as its health port answers it. */
async function readiness(
  app: NestFastifyApplication,
): Promise<{ status: number; info: Record<string, { status: string; message?: string }> }> {
  const port = await freePort();
  const server: Server = await serveWorkerHealth(app, '127.0.0.1', port);
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health/ready`);
    return { status: res.status, info: ((await res.json()) as { info: Record<string, { status: string; message?: string }> }).info };
  } finally {
    server.close();
  }
}

/** docs/operations.md, "Redis Cluster": the whole app on a private three-master cluster. */
describe('Redis Cluster (REDIS_CLUSTER_NODES)', () => {
  let cluster: PrivateRedisCluster;
  let receiver: WebhookReceiver;
  const logs = new LogCapture();

  beforeAll(async () => {
    cluster = await PrivateRedisCluster.start();
    receiver = await new WebhookReceiver().start();
    logs.start();
  }, 60_000);
  const env = (): Record<string, string> => ({
    ...NO_RATE_LIMITS,
    // Live keys have a small hourly limit, test keys none: the rate-limit case uses a live key.
    RATE_LIMIT_LIVE_PER_HOUR: String(LIVE_PER_HOUR),
    REDIS_CLUSTER_NODES: cluster.nodes,
    REDIS_URL: '', // nothing from it: the cluster is found from its nodes
    WORKERS: 'on',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    EVENTS_RELAY_INTERVAL_MS: '200',
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
  });
  const suite = useApp(env);
  afterAll(async () => {
    logs.stop();
    await receiver.close();
    cluster.stop();
  });

  it('runs queue work: an event relayed by a periodic job reaches a webhook through its delivery job', async () => {
    const res = await suite
      .api()
      .post<WebhookWithSecretDto>('/api/v1/webhooks', { url: receiver.url('/cluster'), events: ['patient.created'] });
    expect(res.status).toBe(201);
    const patient = await createPatient(suite.app, suite.tenant.testKey);
    const [got] = await eventually(async () => {
      expect(receiver.on('/cluster')).toHaveLength(1);
      return receiver.on('/cluster');
    }, 30_000);
    expect(new Webhook(res.body.secret).verify(got.body, got.headers)).toMatchObject({ type: 'patient.created', data: patient });
  });

  it('enforces a rate limit across requests: 429 once the window is full', async () => {
    const live = client(suite.app, suite.tenant.liveKey);
    for (let i = 0; i < LIVE_PER_HOUR; i++) expect((await live.get(PRACTICE)).status).toBe(200);
    const refused = await live.get<Problem>(PRACTICE);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('replays a request with the same Idempotency-Key', async () => {
    const headers = { 'idempotency-key': `cluster-${Date.now()}` };
    const first = await call(suite.app, 'POST', KEYS, { key: suite.tenant.testKey, body: { name: 'idempotent', role: 'STAFF' }, headers });
    const again = await call(suite.app, 'POST', KEYS, { key: suite.tenant.testKey, body: { name: 'idempotent', role: 'STAFF' }, headers });
    expect(first.status).toBe(201);
    expect([again.status, again.headers['idempotent-replayed'], again.text]).toEqual([201, 'true', first.text]);
  });

  it('refuses a key revoked on one instance at once on another, which had it cached', async () => {
    const other = await startApp({ ...env(), WORKERS: 'off' });
    try {
      // Every instance's subscription counts, whichever node it listens on.
      expect(await suite.app.get(RedisService).publish('api-keys:evicted', 'no such eviction')).toBe(2);
      const key = await createKey(suite.app, suite.tenant.testKey, { name: 'to revoke' });
      const me = await client(other, key).get<MeDto>('/api/v1/me'); // now cached there
      expect(me.status).toBe(200);
      expect((await suite.api().delete(`${KEYS}/${me.body.key.id}`)).status).toBe(204);
      const res = await client(other, key).get<Problem>(PRACTICE);
      expect([res.status, res.body.code]).toEqual([401, 'invalid_api_key']);
    } finally {
      await other.close();
    }
  });

  it("answers worker readiness 200, keeps each queue's keys in one slot, and logs no cluster error", async () => {
    const ready = await readiness(suite.app);
    expect(ready).toEqual({ status: 200, info: { database: { status: 'up' }, redis: { status: 'up' }, workers: { status: 'up' } } });

    const redis = new Cluster(
      cluster.ports.map((port) => ({ host: '127.0.0.1', port })),
      { lazyConnect: true },
    );
    try {
      await redis.connect();
      const prefix = process.env.REDIS_PREFIX!;
      const keys = (await Promise.all(redis.nodes('master').map((node) => node.keys(`${prefix}:*`)))).flat();
      const queueKeys = keys.filter((key) => key.startsWith(`${prefix}:bull:`));
      expect(queueKeys.length).toBeGreaterThan(0);
      expect(keys.some((key) => key.startsWith(`${prefix}:rl:`))).toBe(true);
      const slotsByTag = new Map<string, Set<number>>();
      for (const key of queueKeys) {
        const tag = /^[^{]*(\{[^}]+\})/.exec(key)?.[1];
        expect(tag).toBeDefined();
        const slot = Number(await redis.cluster('KEYSLOT', key));
        slotsByTag.set(tag!, (slotsByTag.get(tag!) ?? new Set()).add(slot));
      }
      expect([...slotsByTag.keys()]).toEqual(expect.arrayContaining(['{webhook-deliveries}', '{maintenance}']));
      for (const slots of slotsByTag.values()) expect(slots.size).toBe(1);
    } finally {
      redis.disconnect();
    }
    expect(logs.lines.filter((line) => /CROSSSLOT|MOVED|ReplyError|redis unreachable/i.test(line))).toEqual([]);
  });

  it('keeps answering while the cluster is away, and runs queue work again once it is back (empty)', async () => {
    await cluster.kill();
    // Rate limits are counted in memory meanwhile, and the key is looked up in PostgreSQL.
    expect((await suite.api().get(PRACTICE)).status).toBe(200);
    expect((await call(suite.app, 'GET', '/health/ready')).status).toBe(503);
    expect((await readiness(suite.app)).status).toBe(503);

    await cluster.restart();
    await eventually(async () => expect((await readiness(suite.app)).status).toBe(200), 30_000);
    expect((await call(suite.app, 'GET', '/health/ready')).status).toBe(200);
    // The periodic jobs' schedulers, lost with the data, are back: the event relay hands the next event on.
    await createPatient(suite.app, suite.tenant.testKey);
    await eventually(async () => expect(receiver.on('/cluster')).toHaveLength(2), 30_000);
  }, 90_000);

  describe('pointed at one node of the cluster without REDIS_CLUSTER_NODES', () => {
    it('answers worker readiness 503 within seconds, naming the queue error', async () => {
      const app = await startApp({
        ...NO_RATE_LIMITS,
        REDIS_URL: `redis://127.0.0.1:${cluster.ports[0]}`,
        REDIS_CLUSTER_NODES: '',
        WORKERS: 'on',
      });
      try {
        const tenant = await createTenant(app); // the API itself still answers
        expect((await client(app, tenant.testKey).get(PRACTICE)).status).toBe(200);
        const failing = await eventually(async () => {
          const answer = await readiness(app);
          expect(answer.status).toBe(503);
          return answer.info;
        }, 15_000);
        expect(failing).toMatchObject({
          redis: { status: 'up' },
          workers: { status: 'down', message: expect.stringMatching(/^queue [a-z-]+: ReplyError \((CROSSSLOT|MOVED)\)$/) },
        });
      } finally {
        await app.close();
        // BullMQ waits 5 s after a failed stalled-jobs check or events read before it sees it was closed.
        await sleep(5_500);
      }
    }, 60_000);
  });
});
