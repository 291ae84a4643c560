import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import SwaggerParser from '@apidevtools/swagger-parser';
import { RedisService } from '../../src/common/redis/redis.service';
import { call, client, createTenant, dataSource, startApp, TestTenant } from '../helpers/app';

const keys = '/api/v1/settings/portal-access-keys';
let counter = 0;
const idem = (): string => `idem-${Date.now()}-${++counter}`;

describe('Idempotency-Key on POST (contract section 4)', () => {
  let one: NestFastifyApplication;
  let two: NestFastifyApplication;
  let tenant: TestTenant;

  beforeAll(async () => {
    one = await startApp({ WORKERS: 'off' });
    two = await startApp({ WORKERS: 'off' });
    tenant = await createTenant(one);
  });
  afterAll(async () => {
    await one.close();
    await two.close();
  });

  const post = (app: NestFastifyApplication, key: string, body: unknown, idempotencyKey?: string, url = keys) =>
    call(app, 'POST', url, { key, body, headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey } });

  async function countKeysNamed(apiKey: string, name: string): Promise<number> {
    const list = await client(one, apiKey).get(`${keys}?limit=100`);
    return (list.body.keys as { name: string }[]).filter((k) => k.name === name).length;
  }

  it('replays the first response with Idempotent-Replayed: true and creates nothing twice', async () => {
    const key = idem();
    const body = { name: `replayed ${key}`, role: 'STAFF' };
    const first = await post(one, tenant.testKey, body, key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await post(one, tenant.testKey, body, key);
    const elsewhere = await post(two, tenant.testKey, body, key); // another instance, same Redis
    for (const replay of [again, elsewhere]) {
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(first.text); // same key id, same secret: byte for byte
      expect(replay.headers.location).toBe(first.headers.location);
      expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    }
    expect(await countKeysNamed(tenant.testKey, body.name)).toBe(1);
  });

  it('ignores the order of body keys when comparing requests', async () => {
    const key = idem();
    const first = await post(one, tenant.testKey, { name: `order ${key}`, role: 'STAFF' }, key);
    const replay = await post(one, tenant.testKey, { role: 'STAFF', name: `order ${key}` }, key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(first.body.id);
  });

  it('answers 422 idempotency_key_reused for another body, path or query with the same key', async () => {
    const key = idem();
    expect((await post(one, tenant.testKey, { name: `reuse ${key}` }, key)).status).toBe(201);
    const otherBody = await post(one, tenant.testKey, { name: `something else ${key}` }, key);
    expect(otherBody.status).toBe(422);
    expect(otherBody.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(otherBody.body).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
    const otherPath = await post(one, tenant.testKey, { name: `reuse ${key}` }, key, '/api/v1/settings/practice');
    expect(otherPath.body.code).toBe('idempotency_key_reused');
    const otherQuery = await post(one, tenant.testKey, { name: `reuse ${key}` }, key, `${keys}?x=1`);
    expect(otherQuery.body.code).toBe('idempotency_key_reused');
    expect(await countKeysNamed(tenant.testKey, `something else ${key}`)).toBe(0);
  });

  it('answers 409 idempotency_key_in_use to a duplicate on another instance while the first still runs', async () => {
    const key = idem();
    const body = { name: `concurrent ${key}` };
    // Holds every insert into api_keys, so that the first request is provably still running.
    const runner = dataSource(one).createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.query('LOCK TABLE api_keys IN EXCLUSIVE MODE');
      const first = post(one, tenant.testKey, body, key);
      for (let i = 0; i < 100; i++) {
        const [{ waiting }] = await dataSource(one).query(`SELECT count(*)::int AS waiting FROM pg_locks WHERE NOT granted`);
        if (waiting > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const duplicate = await post(two, tenant.testKey, body, key);
      expect(duplicate.status).toBe(409);
      expect(duplicate.body).toMatchObject({ code: 'idempotency_key_in_use' });
      await runner.commitTransaction();
      const done = await first;
      expect(done.status).toBe(201);
      const replay = await post(two, tenant.testKey, body, key);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body.id).toBe(done.body.id);
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
    expect(await countKeysNamed(tenant.testKey, body.name)).toBe(1);
  });

  it('runs exactly one of a burst of duplicates fired at two instances at once', async () => {
    const key = idem();
    const body = { name: `burst ${key}` };
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => post(i % 2 ? two : one, tenant.testKey, body, key)));
    const ran = results.filter((r) => r.status === 201 && r.headers['idempotent-replayed'] === undefined);
    expect(ran).toHaveLength(1);
    for (const r of results) {
      if (r.status === 201) expect(r.body.id).toBe(ran[0].body.id);
      else expect(r.body.code).toBe('idempotency_key_in_use');
    }
    expect(await countKeysNamed(tenant.testKey, body.name)).toBe(1);
  });

  it('scopes keys per tenant and mode', async () => {
    const key = idem();
    const other = await createTenant(one);
    const body = { name: `scoped ${key}` };
    const a = await post(one, tenant.testKey, body, key);
    const b = await post(one, other.testKey, body, key);
    const c = await post(one, tenant.liveKey, body, key);
    for (const r of [a, b, c]) {
      expect(r.status).toBe(201);
      expect(r.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(new Set([a.body.id, b.body.id, c.body.id]).size).toBe(3);
    expect(c.body.mode).toBe('live');
  });

  it('keeps 4xx answers (Stripe semantics) and replays them', async () => {
    const key = idem();
    const first = await post(one, tenant.testKey, { name: '' }, key);
    expect(first.status).toBe(400);
    expect(first.body.code).toBe('validation_failed');
    const replay = await post(two, tenant.testKey, { name: '' }, key);
    expect(replay.status).toBe(400);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toMatch(/^application\/problem\+json/);
    const { requestId: _a, ...firstBody } = first.body;
    const { requestId: _b, ...replayBody } = replay.body;
    expect(replayBody).toEqual(firstBody);
    expect(replay.body.requestId).toBe(replay.headers['x-request-id']);
  });

  it('does not keep 5xx answers: a retry with the same key runs again', async () => {
    const key = idem();
    const body = { name: `explode ${key}` };
    const db = dataSource(one);
    await db.query(`CREATE FUNCTION pm_test_explode() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.name LIKE 'explode %' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`);
    await db.query(`CREATE TRIGGER pm_test_explode BEFORE INSERT ON api_keys FOR EACH ROW EXECUTE FUNCTION pm_test_explode()`);
    try {
      const failed = await post(one, tenant.testKey, body, key);
      expect(failed.status).toBe(500);
      expect(failed.body.code).toBe('internal_error');
    } finally {
      await db.query('DROP TRIGGER pm_test_explode ON api_keys');
      await db.query('DROP FUNCTION pm_test_explode()');
    }
    const retry = await post(one, tenant.testKey, body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await countKeysNamed(tenant.testKey, body.name)).toBe(1);
  });

  it('keeps the response for 24 hours', async () => {
    const key = idem();
    await post(one, tenant.testKey, { name: `ttl ${key}` }, key);
    const redis = one.get(RedisService);
    const found = await redis.client.keys(redis.key('idem', tenant.id, 'test', '*'));
    const ttls = await Promise.all(found.map((k) => redis.client.pttl(k)));
    expect(Math.max(...ttls)).toBeGreaterThan(86_400_000 - 60_000);
    expect(Math.max(...ttls)).toBeLessThanOrEqual(86_400_000);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
  ])('answers 400 validation_failed naming the header for a key that is %s', async (_label, value) => {
    const res = await post(one, tenant.testKey, { name: 'bad idempotency key' }, value);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toEqual([{ field: 'Idempotency-Key', message: expect.stringContaining('1-255') }]);
    expect(await countKeysNamed(tenant.testKey, 'bad idempotency key')).toBe(0);
  });

  it('accepts a key of 255 characters', async () => {
    const key = `${idem()}-`.padEnd(255, 'x');
    const first = await post(one, tenant.testKey, { name: 'long idempotency key' }, key);
    expect(first.status).toBe(201);
    const replay = await post(one, tenant.testKey, { name: 'long idempotency key' }, key);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('neither claims nor stores requests refused before the handler (401)', async () => {
    const key = idem();
    const refused = await post(one, `sk_test_${'Q'.repeat(40)}`, { name: `after 401 ${key}` }, key);
    expect(refused.status).toBe(401);
    const real = await post(one, tenant.testKey, { name: `after 401 ${key}` }, key);
    expect(real.status).toBe(201);
    expect(real.headers['idempotent-replayed']).toBeUndefined();
  });

  it('leaves requests without the header and non-POST requests alone', async () => {
    const body = { name: `no header ${idem()}` };
    const a = await post(one, tenant.testKey, body);
    const b = await post(one, tenant.testKey, body);
    expect(a.body.id).not.toBe(b.body.id);
    const key = idem();
    const get1 = await client(one, tenant.testKey).get(keys, { 'idempotency-key': key });
    const get2 = await client(one, tenant.testKey).get(keys, { 'idempotency-key': key });
    expect([get1.status, get2.status]).toEqual([200, 200]);
    expect(get2.headers['idempotent-replayed']).toBeUndefined();
  });

  it('documents Idempotency-Key, 409/422 and the rate-limit headers in a valid OpenAPI document', async () => {
    const doc = (await call(one, 'GET', '/api/docs-json')).body;
    const create = doc.paths[keys].post;
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
    expect(create.responses['409'].content['application/problem+json'].example.code).toBe('idempotency_key_in_use');
    expect(create.responses['422'].content['application/problem+json'].example.code).toBe('idempotency_key_reused');
    expect(create.responses['201'].headers).toHaveProperty('Idempotent-Replayed');
    expect(create.responses['429'].headers).toHaveProperty('Retry-After');
    const list = doc.paths[keys].get;
    expect((list.parameters ?? []).map((p: { name: string }) => p.name)).not.toContain('Idempotency-Key');
    expect(Object.keys(list.responses['200'].headers)).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit']),
    );
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined();
  });
});
