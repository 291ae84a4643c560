import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Webhook } from 'standardwebhooks';
import { DataSource } from 'typeorm';
import { client, createKey, createTenant, startApp, TestTenant, type Problem } from '../helpers/app';
import { useApp } from '../helpers/use-app';
import { eventually } from '../helpers/eventually';
import { createPatient, NO_RATE_LIMITS } from '../helpers/patients';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { fieldsOf } from '../helpers/scheduling';
import type { EventListDto } from '../../src/modules/events/dto/event.dto';
import type { WebhookDeliveryDto, WebhookDeliveryListDto } from '../../src/modules/webhooks/dto/delivery.dto';
import type { WebhookDto, WebhookListDto, WebhookWithSecretDto } from '../../src/modules/webhooks/dto/webhook.dto';
import { Transactions } from '../../src/database/transactions';
import { EventsService } from '../../src/modules/events/events.service';
import { EventRelay } from '../../src/modules/webhooks/event-relay.sweep';
import { postWebhook } from '../../src/modules/webhooks/webhook-sender';
import { WebhookDeliverer } from '../../src/modules/webhooks/webhook-delivery.processor';
import { JobNotReadyError } from '../../src/common/queue/job-handler';

const WEBHOOKS = '/api/v1/webhooks';
/** A delivery's body, as the receiver verifies it. */
interface Delivered {
  type: string;
  timestamp: string;
  data: unknown;
}

/** Fast retries, a short timeout and three attempts, so that a whole retry schedule takes about a second. */
const FAST_WEBHOOKS = {
  ...NO_RATE_LIMITS,
  WORKERS: 'on',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_RETRY_BASE_MS: '100',
  WEBHOOK_MAX_ATTEMPTS: '3',
  WEBHOOK_TIMEOUT_MS: '500',
  EVENTS_RELAY_INTERVAL_MS: '50',
};

/** IPv6 addresses that stand for private IPv4 ones, each refused by the address it carries. */
const EMBEDDED_PRIVATE_IPV4 = [
  '64:ff9b::a00:1',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b::7f00:1',
  '::a00:1',
  '::a9fe:a9fe',
  '::ffff:a9fe:a9fe',
  '::ffff:0:a00:1',
];

describe('Webhooks', () => {
  let receiver: WebhookReceiver;

  const suite = useApp(FAST_WEBHOOKS);
  beforeAll(async () => {
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver.close();
  });

  /** A fresh tenant with an endpoint on `path` for patient events; answers the tenant, the webhook and its secret. */
  const subscribe = async (path: string, events = ['patient.created', 'patient.updated']) => {
    const tenant = await createTenant(suite.app);
    const res = await suite
      .api(tenant.testKey)
      .post<WebhookWithSecretDto>(WEBHOOKS, { url: receiver.url(path), events, description: 'test receiver' });
    expect(res.status).toBe(201);
    return { tenant, webhook: res.body, secret: res.body.secret };
  };

  const deliveriesOf = async (tenant: TestTenant, webhookId: string): Promise<WebhookDeliveryDto[]> => {
    const res = await suite.api(tenant.testKey).get<WebhookDeliveryListDto>(`${WEBHOOKS}/${webhookId}/deliveries`);
    expect(res.status).toBe(200);
    return res.body.deliveries;
  };

  const verify = (secret: string, received: { body: string; headers: Record<string, string> }): Delivered =>
    new Webhook(secret).verify(received.body, received.headers) as Delivered;

  it('registers an endpoint and shows its secret once', async () => {
    const { tenant, webhook, secret } = await subscribe('/register');
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(webhook).toMatchObject({ url: receiver.url('/register'), events: ['patient.created', 'patient.updated'], enabled: true });
    const one = await suite.api(tenant.testKey).get<WebhookDto & { secret?: string }>(`${WEBHOOKS}/${webhook.id}`);
    expect(one.body).toEqual({ ...webhook, secret: undefined });
    expect(one.body.secret).toBeUndefined();
    const list = await suite.api(tenant.testKey).get<WebhookListDto>(WEBHOOKS);
    expect(list.body.webhooks.map((w) => w.id)).toEqual([webhook.id]);
    expect(JSON.stringify(list.body)).not.toContain(secret);

    const patched = await suite.api(tenant.testKey).patch<WebhookDto>(`${WEBHOOKS}/${webhook.id}`, {
      events: ['patient.updated'],
      description: null,
    });
    expect(patched.body).toMatchObject({ events: ['patient.updated'], description: null });
    const bad = await suite.api(tenant.testKey).post<Problem>(WEBHOOKS, { url: receiver.url('/x'), events: ['patient.deleted'], extra: 1 });
    expect(bad.status).toBe(400);
    expect(fieldsOf(bad.body).sort()).toEqual(['events', 'extra']);

    expect((await suite.api(tenant.testKey).delete(`${WEBHOOKS}/${webhook.id}`)).status).toBe(204);
    expect((await suite.api(tenant.testKey).get(`${WEBHOOKS}/${webhook.id}`)).status).toBe(404);
  });

  it('refuses null for a PATCH member that cannot be cleared, naming it; null clears the description', async () => {
    const { tenant, webhook } = await subscribe('/patch-nulls');
    const api = suite.api(tenant.testKey);
    for (const field of ['url', 'events', 'enabled']) {
      const res = await api.patch<Problem>(`${WEBHOOKS}/${webhook.id}`, { [field]: null });
      expect([res.status, (res.body.errors ?? []).map((e: { field: string }) => e.field)]).toEqual([400, [field]]);
    }
    const cleared = await api.patch<WebhookDto>(`${WEBHOOKS}/${webhook.id}`, { description: null });
    expect([cleared.status, cleared.body.description, cleared.body.url]).toEqual([200, null, webhook.url]);
  });

  it('delivers an event signed per Standard Webhooks, with the event id as webhook-id, and logs the attempt', async () => {
    const { tenant, webhook, secret } = await subscribe('/ok');
    const patient = await createPatient(suite.app, tenant.testKey);
    const [got] = await eventually(async () => {
      expect(receiver.on('/ok')).toHaveLength(1);
      return receiver.on('/ok');
    });
    const payload = verify(secret, got);
    expect(payload).toEqual({ type: 'patient.created', timestamp: expect.any(String), data: patient });
    const [event] = (await suite.api(tenant.testKey).get<EventListDto>('/api/v1/events')).body.events;
    expect(got.headers['webhook-id']).toBe(event.id);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(got.body, got.headers)).toThrow();

    const deliveries = await eventually(async () => {
      const list = await deliveriesOf(tenant, webhook.id);
      expect(list[0].status).toBe('succeeded');
      return list;
    });
    expect(deliveries).toEqual([
      expect.objectContaining({ eventId: event.id, eventType: 'patient.created', status: 'succeeded', nextAttemptAt: null }),
    ]);
    expect(deliveries[0].attempts).toEqual([
      { attempt: 1, startedAt: expect.any(String), statusCode: 200, durationMs: expect.any(Number), responseBody: 'ok', error: null },
    ]);
  });

  it('an attempt whose run died holding its lease waits for the lease to lapse, then is made', async () => {
    const { tenant, webhook } = await subscribe('/held');
    await createPatient(suite.app, tenant.testKey);
    await eventually(async () => expect((await deliveriesOf(tenant, webhook.id))[0]?.status).toBe('succeeded'));
    const [delivery] = await deliveriesOf(tenant, webhook.id);
    // As a run leaves it that POSTed and then lost the database before recording the attempt.
    const db = suite.app.get(DataSource);
    await db.query(`DELETE FROM webhook_delivery_attempts WHERE delivery_id = $1`, [delivery.id]);
    await db.query(
      `UPDATE webhook_deliveries SET status = 'pending', attempt_count = 0, lease_until = now() + interval '1 second' WHERE id = $1`,
      [delivery.id],
    );
    const deliverer = suite.app.get(WebhookDeliverer);
    const payload = { deliveryId: delivery.id, tenantId: tenant.id, mode: 'test' as const, attempt: 1, manual: false };
    const held = await deliverer.attempt(payload).then(
      () => null,
      (err: unknown) => err,
    );
    expect(held).toBeInstanceOf(JobNotReadyError);
    expect((held as JobNotReadyError).delayMs).toBeGreaterThan(0);
    expect((held as JobNotReadyError).delayMs).toBeLessThanOrEqual(1100);
    await new Promise((resolve) => setTimeout(resolve, (held as JobNotReadyError).delayMs));
    await deliverer.attempt(payload);
    expect(receiver.on('/held')).toHaveLength(2);
    expect((await deliveriesOf(tenant, webhook.id))[0]).toMatchObject({ status: 'succeeded' });
  });

  it('retries after 500s and a timeout with the same webhook-id, keeping every attempt', async () => {
    const { tenant, webhook, secret } = await subscribe('/flaky');
    const big = 'x'.repeat(3000);
    receiver.script('/flaky', { status: 500, body: big }, { status: 200, delayMs: 1500 }, { status: 200, body: 'finally' });
    await createPatient(suite.app, tenant.testKey);
    const delivery = await eventually(async () => {
      const [d] = await deliveriesOf(tenant, webhook.id);
      expect(d.status).toBe('succeeded');
      return d;
    }, 20_000);
    expect(delivery.attempts.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 500, null],
      [2, null, 'timeout after 500 ms'],
      [3, 200, null],
    ]);
    expect(delivery.attempts[0].responseBody).toBe('x'.repeat(1024));
    expect(delivery.attempts[2].responseBody).toBe('finally');
    const got = receiver.on('/flaky');
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(got[0].headers['webhook-id']).toBe(delivery.eventId);
    for (const r of got) expect(verify(secret, r).type).toBe('patient.created');
  });

  it('disables the endpoint after the last attempt fails; PATCH re-enables it; a manual retry delivers', async () => {
    const { tenant, webhook, secret } = await subscribe('/down');
    receiver.script('/down', { status: 503, body: 'down' });
    await createPatient(suite.app, tenant.testKey);
    const failed = await eventually(async () => {
      const [d] = await deliveriesOf(tenant, webhook.id);
      expect(d.status).toBe('failed');
      return d;
    }, 20_000);
    expect(failed.attempts.map((a) => a.statusCode)).toEqual([503, 503, 503]);
    const disabled = (await suite.api(tenant.testKey).get<WebhookDto>(`${WEBHOOKS}/${webhook.id}`)).body;
    expect(disabled).toMatchObject({ enabled: false, disabledAt: expect.any(String) });

    // While disabled, new events create no deliveries for it.
    await createPatient(suite.app, tenant.testKey);
    await suite.app.get(EventRelay).runOnce();
    expect(await deliveriesOf(tenant, webhook.id)).toHaveLength(1);

    const enabled = await suite.api(tenant.testKey).patch<WebhookDto>(`${WEBHOOKS}/${webhook.id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabledAt: null });

    receiver.script('/down', { status: 204 });
    const retry = await suite.api(tenant.testKey).post<WebhookDeliveryDto>(`${WEBHOOKS}/${webhook.id}/deliveries/${failed.id}/retry`);
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ id: failed.id, status: 'pending' });
    const retried = await eventually(async () => {
      const d = (await deliveriesOf(tenant, webhook.id)).find((x) => x.id === failed.id)!;
      expect(d.status).toBe('succeeded');
      return d;
    });
    expect(retried.attempts.map((a) => a.statusCode)).toEqual([503, 503, 503, 204]);
    const got = receiver.on('/down');
    expect(got).toHaveLength(4);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    verify(secret, got[3]);
    const other = '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b';
    expect((await suite.api(tenant.testKey).post(`${WEBHOOKS}/${webhook.id}/deliveries/${other}/retry`)).status).toBe(404);
  });

  it('rotates the secret: deliveries verify with the new one (and, for a grace period, the old one)', async () => {
    const { tenant, webhook, secret } = await subscribe('/rotate');
    const rotated = await suite.api(tenant.testKey).post<WebhookWithSecretDto>(`${WEBHOOKS}/${webhook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
    const fresh = rotated.body.secret;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    await createPatient(suite.app, tenant.testKey);
    const [got] = await eventually(async () => {
      expect(receiver.on('/rotate')).toHaveLength(1);
      return receiver.on('/rotate');
    });
    expect(verify(fresh, got).type).toBe('patient.created');
    expect(verify(secret, got).type).toBe('patient.created');
    expect(got.headers['webhook-signature'].split(' ')).toHaveLength(2);
  });

  it('sends a webhook.test event to one endpoint on demand', async () => {
    const { tenant, webhook, secret } = await subscribe('/ping');
    const res = await suite.api(tenant.testKey).post<WebhookDeliveryDto>(`${WEBHOOKS}/${webhook.id}/test`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ eventType: 'webhook.test', status: 'pending' });
    const [got] = await eventually(async () => {
      expect(receiver.on('/ping')).toHaveLength(1);
      return receiver.on('/ping');
    });
    expect(verify(secret, got)).toMatchObject({ type: 'webhook.test', data: { webhookId: webhook.id } });
    expect(got.headers['webhook-id']).toBe(res.body.eventId);
  });

  describe('where private URLs are not allowed', () => {
    // A second app of the process, in hooks of their own: a start or close that takes long says so here,
    // where a slow start inside the test would only have been a timeout.
    let strict: NestFastifyApplication | undefined;
    const timed = async <T>(step: string, run: () => Promise<T>): Promise<T> => {
      const started = Date.now();
      const result = await run();
      if (Date.now() - started > 5000) console.warn(`webhooks: the strict app's ${step} took ${Date.now() - started} ms`);
      return result;
    };
    beforeAll(async () => {
      strict = await timed('start', () => startApp({ ...NO_RATE_LIMITS, WORKERS: 'off', WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }));
    }, 90_000);
    afterAll(() => timed('close', async () => strict?.close()), 90_000);

    it('refuses private and non-https URLs at registration', async () => {
      const tenant = await createTenant(strict!);
      for (const url of [
        'http://example.com/hook',
        'https://127.0.0.1/hook',
        'https://10.1.2.3/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://[::1]/hook',
        `https://localhost:${receiver.port}/hook`,
        // IPv6 forms that stand for a private IPv4 address: NAT64 (10.0.0.1, the metadata service),
        // IPv4-compatible, IPv4-mapped and IPv4-translated.
        ...EMBEDDED_PRIVATE_IPV4.map((address) => `https://[${address}]/hook`),
      ]) {
        const res = await client(strict!, tenant.testKey).post<Problem>(WEBHOOKS, { url, events: ['patient.created'] });
        expect([url, res.status, res.body.code, res.body.errors?.[0]?.field]).toEqual([url, 400, 'validation_failed', 'url']);
      }
    });

    it('will not move an endpoint registered where they are allowed to a private URL', async () => {
      const { tenant: owner, webhook } = await subscribe('/never');
      const patch = await client(strict!, owner.testKey).patch<Problem>(`${WEBHOOKS}/${webhook.id}`, { url: 'https://192.168.0.10/hook' });
      expect([patch.status, patch.body.errors?.[0]]).toEqual([400, { field: 'url', message: expect.stringMatching(/private/) }]);
    });
  });

  it('refuses a private address at delivery, checked after DNS, before any byte is sent', async () => {
    // A name resolving to loopback is refused as an address literal is.
    for (const url of [
      `https://localhost:${receiver.port}/never`,
      `https://127.0.0.1:${receiver.port}/never`,
      receiver.url('/never'),
      ...EMBEDDED_PRIVATE_IPV4.map((address) => `https://[${address}]:${receiver.port}/never`),
    ]) {
      const result = await postWebhook(url, '{}', {}, { timeoutMs: 1000, allowPrivate: false });
      expect([url, result.statusCode, result.error]).toEqual([url, null, expect.stringMatching(/^address not allowed/)]);
    }
    expect(receiver.on('/never')).toHaveLength(0);
  });

  it('keeps tenants and modes apart: endpoints, deliveries and events', async () => {
    const { tenant, webhook } = await subscribe('/mine');
    const other = await createTenant(suite.app);
    await createPatient(suite.app, other.testKey);
    await createPatient(suite.app, tenant.liveKey);
    await suite.app.get(EventRelay).runOnce();
    for (const key of [other.testKey, tenant.liveKey]) {
      expect((await suite.api(key).get<WebhookListDto>(WEBHOOKS)).body.webhooks).toEqual([]);
      for (const [method, path] of [
        ['get', `${WEBHOOKS}/${webhook.id}`],
        ['patch', `${WEBHOOKS}/${webhook.id}`],
        ['delete', `${WEBHOOKS}/${webhook.id}`],
        ['get', `${WEBHOOKS}/${webhook.id}/deliveries`],
        ['post', `${WEBHOOKS}/${webhook.id}/rotate-secret`],
        ['post', `${WEBHOOKS}/${webhook.id}/test`],
      ] as const) {
        const res = await (suite.api(key)[method] as (url: string, body?: unknown) => Promise<{ status: number }>)(
          path,
          method === 'patch' ? {} : undefined,
        );
        expect([method, path, res.status]).toEqual([method, path, 404]);
      }
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.on('/mine')).toHaveLength(0);
    expect(await deliveriesOf(tenant, webhook.id)).toEqual([]);
  });

  it('needs webhooks:read for reads (any role) and webhooks:write with OWNER or ADMIN for changes', async () => {
    const { tenant, webhook } = await subscribe('/roles');
    const staff = await createKey(suite.app, tenant.testKey, { role: 'STAFF', scopes: ['webhooks:read', 'webhooks:write'] });
    expect((await suite.api(staff).get(WEBHOOKS)).status).toBe(200);
    expect((await suite.api(staff).get(`${WEBHOOKS}/${webhook.id}/deliveries`)).status).toBe(200);
    const refused = await suite.api(staff).post<Problem>(WEBHOOKS, { url: receiver.url('/x'), events: ['patient.created'] });
    expect([refused.status, refused.body.code]).toEqual([403, 'insufficient_role']);
    expect((await suite.api(staff).delete(`${WEBHOOKS}/${webhook.id}`)).status).toBe(403);
    const admin = await createKey(suite.app, tenant.testKey, { role: 'ADMIN', scopes: ['webhooks:read'] });
    const noScope = await suite.api(admin).patch<Problem>(`${WEBHOOKS}/${webhook.id}`, { enabled: false });
    expect([noScope.status, noScope.body.code]).toEqual([403, 'insufficient_scope']);
    const reader = await createKey(suite.app, tenant.testKey, { role: 'ADMIN', scopes: ['patients:read'] });
    expect((await suite.api(reader).get<Problem>(WEBHOOKS)).body.code).toBe('insufficient_scope');
  });
});

/**
 * Apart from the suite above, whose 500 ms timeout would, on a loaded machine, turn a slow answer into a
 * retry (at-least-once delivery, by design): here a duplicate could only come from the relays.
 */
describe('Webhook relays side by side', () => {
  const PATIENT_WEBHOOKS = { ...FAST_WEBHOOKS, WEBHOOK_TIMEOUT_MS: '10000' };
  let first: NestFastifyApplication;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    first = await startApp(PATIENT_WEBHOOKS);
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await first.close();
    await receiver.close();
  });

  it('delivers every event exactly once when two workers relay at the same time', async () => {
    const tenant = await createTenant(first);
    const created = await client(first, tenant.testKey).post<WebhookWithSecretDto>(WEBHOOKS, {
      url: receiver.url('/once'),
      events: ['patient.created'],
    });
    const webhook = created.body;
    const second = await startApp(PATIENT_WEBHOOKS);
    try {
      const scope = { tenantId: tenant.id, mode: 'test' as const };
      const events = first.get(EventsService);
      const count = 200;
      for (let i = 0; i < count; i += 50) {
        await first.get(Transactions).run((tx) =>
          events.recordMany(
            scope,
            'patient.created',
            Array.from({ length: 50 }, (_, j) => ({ id: `p-${i + j}` })),
            tx,
          ),
        );
        // Both relays race for the same events, besides their own timers.
        await Promise.all([first.get(EventRelay).runOnce(), second.get(EventRelay).runOnce()]);
      }
      await eventually(async () => expect(receiver.on('/once').length).toBeGreaterThanOrEqual(count), 100_000, 100);
      await new Promise((r) => setTimeout(r, 500)); // a duplicate would arrive meanwhile
      const ids = receiver.on('/once').map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(count);
      expect(new Set(ids).size).toBe(count);
      const page = await client(first, tenant.testKey).get<WebhookDeliveryListDto>(`${WEBHOOKS}/${webhook.id}/deliveries?limit=100`);
      expect(page.body.deliveries.every((d) => d.status === 'succeeded' && d.attempts.length === 1)).toBe(true);
    } finally {
      await second.close();
    }
  }, 120_000);
});
