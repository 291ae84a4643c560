import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIObject } from '@nestjs/swagger';
import { idempotencyKeyHash } from '../../src/common/idempotency/idempotency';
import { IdempotencyKeysRepository } from '../../src/common/idempotency/idempotency-keys.repository';
import { clock } from '../../src/common/time/clock';
import type { ApiKeyListDto, CreatedApiKeyDto } from '../../src/modules/api-keys/dto/api-key.dto';
import type { PatientDto } from '../../src/modules/patients/dto/patient.dto';
import { call, client, createKey, createTenant, dataSource, type Problem, startApp, TestResponse, TestTenant } from '../helpers/app';
import { inline, parserCopy, problemCodes } from '../helpers/openapi';
import { PATIENTS } from '../helpers/patients';

const keys = '/api/v1/settings/portal-access-keys';
let counter = 0;
const idem = (): string => `idem-${Date.now()}-${++counter}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits until `n` statements wait on a lock (the requests under test are provably blocked). */
/** Statements of this suite's database waiting on a lock (other databases on the server are other runs'). */
async function waitingOnLocks(app: NestFastifyApplication): Promise<number> {
  const [{ waiting }]: { waiting: number }[] = await dataSource(app).query(
    `SELECT count(*)::int AS waiting FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE NOT l.granted AND a.datname = current_database()`,
  );
  return waiting;
}

async function waitForBlocked(app: NestFastifyApplication, n: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await waitingOnLocks(app)) >= n) return;
    await sleep(20);
  }
  throw new Error(`fewer than ${n} statements are waiting on a lock`);
}

describe('Idempotency-Key on POST', () => {
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

  const post = <T = unknown>(app: NestFastifyApplication, key: string, body: unknown, idempotencyKey?: string, url = keys) =>
    call<T>(app, 'POST', url, { key, body, headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey } });

  async function countKeysNamed(apiKey: string, name: string): Promise<number> {
    const list = await client(one, apiKey).get<ApiKeyListDto>(`${keys}?limit=100`);
    return list.body.keys.filter((k) => k.name === name).length;
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
    const first = await post<CreatedApiKeyDto>(one, tenant.testKey, { name: `order ${key}`, role: 'STAFF' }, key);
    const replay = await post<CreatedApiKeyDto>(one, tenant.testKey, { role: 'STAFF', name: `order ${key}` }, key);
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
    const otherPath = await post<Problem>(one, tenant.testKey, { name: `reuse ${key}` }, key, '/api/v1/settings/practice');
    expect(otherPath.body.code).toBe('idempotency_key_reused');
    const otherQuery = await post<Problem>(one, tenant.testKey, { name: `reuse ${key}` }, key, `${keys}?x=1`);
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
      const first = post<CreatedApiKeyDto>(one, tenant.testKey, body, key);
      await waitForBlocked(one, 1);
      const duplicate = await post(two, tenant.testKey, body, key);
      expect(duplicate.status).toBe(409);
      expect(duplicate.body).toMatchObject({ code: 'idempotency_key_in_use' });
      await runner.commitTransaction();
      const done = await first;
      expect(done.status).toBe(201);
      const replay = await post<CreatedApiKeyDto>(two, tenant.testKey, body, key);
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
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => post<Partial<CreatedApiKeyDto & Problem>>(i % 2 ? two : one, tenant.testKey, body, key)),
    );
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
    const a = await post<CreatedApiKeyDto>(one, tenant.testKey, body, key);
    const b = await post<CreatedApiKeyDto>(one, other.testKey, body, key);
    const c = await post<CreatedApiKeyDto>(one, tenant.liveKey, body, key);
    for (const r of [a, b, c]) {
      expect(r.status).toBe(201);
      expect(r.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(new Set([a.body.id, b.body.id, c.body.id]).size).toBe(3);
    expect(c.body.mode).toBe('live');
  });

  it('keeps 4xx answers (Stripe semantics) and replays them', async () => {
    const key = idem();
    const first = await post<Problem>(one, tenant.testKey, { name: '' }, key);
    expect(first.status).toBe(400);
    expect(first.body.code).toBe('validation_failed');
    const replay = await post<Problem>(two, tenant.testKey, { name: '' }, key);
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
      const failed = await post<Problem>(one, tenant.testKey, body, key);
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

  it('keeps the response for 24 hours, in PostgreSQL', async () => {
    const key = idem();
    await post(one, tenant.testKey, { name: `ttl ${key}` }, key);
    const [row]: { state: string; response_status: number; ttl: string }[] = await dataSource(one).query(
      `SELECT state, response_status, extract(epoch FROM expires_at - $3::timestamptz) * 1000 AS ttl
         FROM idempotency_keys WHERE tenant_id = $1 AND key_hash = $2`,
      [tenant.id, idempotencyKeyHash(key), clock.now()],
    );
    expect(row).toMatchObject({ state: 'done', response_status: 201 });
    expect(Number(row.ttl)).toBeGreaterThan(86_400_000 - 60_000);
    expect(Number(row.ttl)).toBeLessThanOrEqual(86_400_000);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
  ])('answers 400 validation_failed naming the header for a key that is %s', async (_label, value) => {
    const res = await post<Problem>(one, tenant.testKey, { name: 'bad idempotency key' }, value);
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
    const a = await post<CreatedApiKeyDto>(one, tenant.testKey, body);
    const b = await post<CreatedApiKeyDto>(one, tenant.testKey, body);
    expect(a.body.id).not.toBe(b.body.id);
    const key = idem();
    const get1 = await client(one, tenant.testKey).get(keys, { 'idempotency-key': key });
    const get2 = await client(one, tenant.testKey).get(keys, { 'idempotency-key': key });
    expect([get1.status, get2.status]).toEqual([200, 200]);
    expect(get2.headers['idempotent-replayed']).toBeUndefined();
  });

  it('documents Idempotency-Key, 409/422 and the rate-limit headers in a valid OpenAPI document', async () => {
    const doc = (await call<OpenAPIObject>(one, 'GET', '/api/docs-json')).body;
    const create = doc.paths[keys].post!;
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }));
    const codes = (status: string): string[] => problemCodes(create.responses[status]);
    expect(codes('409')).toContain('idempotency_key_in_use');
    expect(codes('422')).toEqual(['idempotency_key_reused']);
    expect(Object.keys(inline(create.responses['409'])!.content!['application/problem+json'].examples!)).toContain(
      'idempotency_key_in_use',
    );
    expect(inline(create.responses['201'])!.headers).toHaveProperty('Idempotent-Replayed');
    expect(inline(create.responses['429'])!.headers).toHaveProperty('Retry-After');
    const list = doc.paths[keys].get!;
    expect((list.parameters ?? []).map((p) => inline(p)!.name)).not.toContain('Idempotency-Key');
    expect(Object.keys(inline(list.responses['200'])!.headers!)).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'RateLimit-Policy', 'RateLimit']),
    );
    await expect(SwaggerParser.validate(parserCopy(doc))).resolves.toBeDefined();
  });

  describe('per API key (no secret replayed to another key)', () => {
    it("answers a key reusing another key's Idempotency-Key with a fresh request, never the other key's secret", async () => {
      const admin = await createKey(one, tenant.testKey, {
        name: 'settings admin',
        role: 'ADMIN',
        scopes: ['settings:read', 'settings:write'],
      });
      const k1 = idem();
      const body = { name: 'integration key' };
      const owner = await post<CreatedApiKeyDto>(one, tenant.testKey, body, k1);
      expect(owner.status).toBe(201);
      expect(owner.body.scopes).toBeNull(); // the OWNER's new key is unscoped

      const other = await post<CreatedApiKeyDto>(two, admin, body, k1);
      expect(other.status).toBe(201);
      expect(other.headers['idempotent-replayed']).toBeUndefined();
      expect(other.text).not.toContain(owner.body.key);
      expect(other.body.id).not.toBe(owner.body.id);
      expect(other.body).toMatchObject({ role: 'ADMIN', scopes: ['settings:read', 'settings:write'] });
      expect((await client(one, other.body.key).get(PATIENTS)).status).toBe(403); // what it got cannot read patients

      // Each key still gets its own first answer back.
      const ownerAgain = await post<CreatedApiKeyDto>(two, tenant.testKey, body, k1);
      const adminAgain = await post<CreatedApiKeyDto>(one, admin, body, k1);
      expect([ownerAgain.headers['idempotent-replayed'], adminAgain.headers['idempotent-replayed']]).toEqual(['true', 'true']);
      expect(ownerAgain.body.key).toBe(owner.body.key);
      expect(adminAgain.body.key).toBe(other.body.key);
    });
  });

  describe('recorded in PostgreSQL with the write it guards (no duplicate after a crash)', () => {
    let quick: NestFastifyApplication; // locks of dead requests expire after 1 s
    let patientKey: string;
    beforeAll(async () => {
      quick = await startApp({ WORKERS: 'off', IDEMPOTENCY_LOCK_SECONDS: '1' });
      patientKey = tenant.testKey;
    });
    afterAll(() => quick.close());

    const countPatients = async (lastName: string): Promise<number> =>
      (
        await dataSource(one).query<{ n: number }[]>(`SELECT count(*)::int AS n FROM patients WHERE tenant_id = $1 AND last_name = $2`, [
          tenant.id,
          lastName,
        ])
      )[0].n;

    it('replays the committed result when the answer was lost after COMMIT: same status, body, Location and ETag', async () => {
      const key = idem();
      const body = { firstName: 'Recovered', lastName: `Point ${key}` };
      const db = dataSource(one);
      // The answer cannot be stored, as if the process died right after the COMMIT.
      await db.query(`CREATE FUNCTION pm_test_lose_answer() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.state = 'done' THEN RAISE EXCEPTION 'lost'; END IF; RETURN NEW; END $$`);
      await db.query(
        `CREATE TRIGGER pm_test_lose_answer BEFORE UPDATE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION pm_test_lose_answer()`,
      );
      let first: TestResponse<PatientDto>;
      try {
        first = await post<PatientDto>(quick, patientKey, body, key, PATIENTS);
        expect(first.status).toBe(201);
      } finally {
        await db.query('DROP TRIGGER pm_test_lose_answer ON idempotency_keys');
        await db.query('DROP FUNCTION pm_test_lose_answer()');
      }
      const [record]: { state: string; points: number }[] = await db.query(
        `SELECT state, cardinality(recovery_points) AS points FROM idempotency_keys WHERE tenant_id = $1 AND key_hash = $2`,
        [tenant.id, idempotencyKeyHash(key)],
      );
      expect(record).toEqual({ state: 'running', points: 1 });

      await sleep(1100); // the dead request's lock expires
      const retry = await post<PatientDto>(quick, patientKey, body, key, PATIENTS);
      expect(retry.status).toBe(201);
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(retry.headers.location).toBe(first.headers.location);
      expect(retry.headers.etag).toBe(first.headers.etag);
      expect(await countPatients(body.lastName)).toBe(1);
      const stored = await post(one, patientKey, body, key, PATIENTS); // now kept as an answer
      expect(stored.headers['idempotent-replayed']).toBe('true');
      expect(stored.text).toBe(retry.text);
    });

    it('lets a request that lost its key to a takeover commit nothing: one write per key, whatever the timing', async () => {
      const key = idem();
      const body = { firstName: 'Slow', lastName: `Writer ${key}` };
      const runner = dataSource(one).createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        await runner.query('LOCK TABLE patients IN EXCLUSIVE MODE');
        const slow = post<Problem>(quick, patientKey, body, key, PATIENTS);
        await waitForBlocked(one, 1);
        await sleep(1100); // its lock expires while it waits: a retry takes the key over
        const takeover = post(quick, patientKey, body, key, PATIENTS);
        await waitForBlocked(one, 2);
        await runner.commitTransaction();
        const [a, b] = await Promise.all([slow, takeover]);
        expect([a.status, a.body.code]).toEqual([409, 'idempotency_key_in_use']);
        expect(b.status).toBe(201);
      } finally {
        if (runner.isTransactionActive) await runner.rollbackTransaction();
        await runner.release();
      }
      expect(await countPatients(body.lastName)).toBe(1);
    });

    it('records nothing of a guarded transaction that rolled back (its 4xx answer is kept)', async () => {
      const key = idem();
      const externalId = `rollback-${key}`;
      expect((await post(one, patientKey, { firstName: 'Taken', lastName: 'Id', externalId }, undefined, PATIENTS)).status).toBe(201);
      const body = { firstName: 'Second', lastName: `Rolled back ${key}`, externalId };
      const refused = await post<Problem>(one, patientKey, body, key, PATIENTS);
      expect(refused.body.code).toBe('external_id_taken');
      const [record]: { state: string; points: number }[] = await dataSource(one).query(
        `SELECT state, cardinality(recovery_points) AS points FROM idempotency_keys WHERE tenant_id = $1 AND key_hash = $2`,
        [tenant.id, idempotencyKeyHash(key)],
      );
      expect(record).toEqual({ state: 'done', points: 0 }); // a 4xx is kept (Stripe), with nothing committed
      expect(await countPatients(body.lastName)).toBe(0);
    });

    it('treats an expired record as unused and sweeps expired records away', async () => {
      const key = idem();
      expect((await post(one, tenant.testKey, { name: `expiring ${key}` }, key)).status).toBe(201);
      const hash = idempotencyKeyHash(key);
      await dataSource(one).query(`UPDATE idempotency_keys SET expires_at = $2::timestamptz - interval '1 second' WHERE key_hash = $1`, [
        hash,
        clock.now(),
      ]);
      const fresh = await post(one, tenant.testKey, { name: `another body ${key}` }, key); // not 422: the old one has expired
      expect(fresh.status).toBe(201);
      expect(fresh.headers['idempotent-replayed']).toBeUndefined();

      const kept = idem();
      await post(one, tenant.testKey, { name: `kept ${kept}` }, kept);
      await dataSource(one).query(`UPDATE idempotency_keys SET expires_at = $2::timestamptz - interval '1 second' WHERE key_hash = $1`, [
        hash,
        clock.now(),
      ]);
      expect(await one.get(IdempotencyKeysRepository).deleteExpired()).toBeGreaterThanOrEqual(1);
      const left: { key_hash: string }[] = await dataSource(one).query(`SELECT key_hash FROM idempotency_keys WHERE key_hash = ANY($1)`, [
        [hash, idempotencyKeyHash(kept)],
      ]);
      expect(left).toEqual([{ key_hash: idempotencyKeyHash(kept) }]);
    });
  });
});
