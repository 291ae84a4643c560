import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { serialize, deserialize } from 'node:v8';
import { Webhook } from 'standardwebhooks';
import { client, dataSource, TestTenant } from '../helpers/app';
import { eventually } from '../helpers/eventually';
import { NO_RATE_LIMITS } from '../helpers/patients';
import { useApp } from '../helpers/use-app';
import { WebhookReceiver } from '../helpers/webhook-receiver';
import { AppCrypto } from '../../src/common/crypto/app-crypto';
import { clock } from '../../src/common/time/clock';
import { IdempotencyKeysRepository } from '../../src/common/idempotency/idempotency-keys.repository';
import { WebhookEndpointsRepository } from '../../src/modules/webhooks/webhook-endpoints.repository';
import { EncryptSecretsAtRest1764030000000 } from '../../migrations/1764030000000-EncryptSecretsAtRest';
import type { CreatedApiKeyDto } from '../../src/modules/api-keys/dto/api-key.dto';
import type { WebhookWithSecretDto } from '../../src/modules/webhooks/dto/webhook.dto';

const KEYS = '/api/v1/settings/portal-access-keys';
const WEBHOOKS = '/api/v1/webhooks';
const ENCRYPTED = /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/;

/** What an attacker with a database dump reads: every column of the row, as text. */
async function rawRow(app: NestFastifyApplication, table: string, where: string, params: unknown[]): Promise<string> {
  const rows = await dataSource(app).query<{ row: string }[]>(`SELECT to_jsonb(t)::text AS row FROM ${table} t WHERE ${where}`, params);
  expect(rows).toHaveLength(1);
  return rows[0].row;
}

describe('Secrets at rest', () => {
  const suite = useApp({
    ...NO_RATE_LIMITS,
    WORKERS: 'on',
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    EVENTS_RELAY_INTERVAL_MS: '50',
    IDEMPOTENCY_LOCK_SECONDS: '1',
  });
  const receiver = new WebhookReceiver();
  beforeAll(() => receiver.start());
  suite.onClose(() => receiver.close());
  let app: NestFastifyApplication;
  let tenant: TestTenant;
  beforeAll(() => ({ app, tenant } = suite));

  it('keeps a stored idempotent answer that carries an API key encrypted, and still replays it to its creator', async () => {
    const owner = client(app, tenant.testKey);
    const headers = { 'idempotency-key': 'encrypted-answer' };
    const created = await owner.post<CreatedApiKeyDto>(KEYS, { name: 'integration key' }, headers);
    expect(created.status).toBe(201);
    const secret = created.body.key;
    expect(secret).toMatch(/^sk_test_/);

    const raw = await rawRow(app, 'idempotency_keys', `tenant_id = $1 AND response_status = 201`, [tenant.id]);
    expect(raw).not.toContain(secret);
    expect(raw).not.toContain(secret.slice(-12));
    expect(raw).not.toContain('sk_test_');
    const [{ response_body: body }] = await dataSource(app).query<{ response_body: string }[]>(
      `SELECT response_body FROM idempotency_keys WHERE tenant_id = $1`,
      [tenant.id],
    );
    expect(body).toMatch(ENCRYPTED);

    const replayed = await owner.post<CreatedApiKeyDto>(KEYS, { name: 'integration key' }, headers);
    expect(replayed.status).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.key).toBe(secret);
  });

  it('keeps recovery points encrypted and bound to their record', async () => {
    const keys = app.get(IdempotencyKeysRepository);
    const scope = { tenantId: tenant.id, mode: 'test' as const, callerId: '00000000-0000-7000-8000-000000000001' };
    const first = await keys.claim(scope, 'a'.repeat(64), 'f'.repeat(64));
    if (!('claimed' in first)) throw new Error('expected a claim');
    const result = { key: 'sk_test_recoverypointsecret0123456789abcdef' };
    await dataSource(app).transaction((tx) => keys.recordRecoveryPoint(scope, first.claimed, serialize(result), tx));

    const raw = await rawRow(app, 'idempotency_keys', 'id = $1', [first.claimed.id]);
    expect(raw).not.toContain('recoverypointsecret');
    expect(raw).not.toContain(Buffer.from('recoverypointsecret').toString('hex'));

    // The holder "died": once its lock lapses, a retry takes the record over and gets the result back.
    await new Promise((r) => setTimeout(r, 1100));
    const retry = await keys.claim(scope, 'a'.repeat(64), 'f'.repeat(64));
    if (!('claimed' in retry)) throw new Error('expected a takeover');
    expect(retry.claimed.recoveryPoints.map((p): unknown => deserialize(p))).toEqual([result]);

    // Copied into another key's record, the point does not open.
    const other = await keys.claim({ ...scope, callerId: '00000000-0000-7000-8000-000000000002' }, 'a'.repeat(64), 'f'.repeat(64));
    if (!('claimed' in other)) throw new Error('expected a claim');
    await dataSource(app).query(
      `UPDATE idempotency_keys SET recovery_points = (SELECT recovery_points FROM idempotency_keys WHERE id = $1) WHERE id = $2`,
      [first.claimed.id, other.claimed.id],
    );
    await new Promise((r) => setTimeout(r, 1100));
    await expect(
      keys.claim({ ...scope, callerId: '00000000-0000-7000-8000-000000000002' }, 'a'.repeat(64), 'f'.repeat(64)),
    ).rejects.toThrow(/does not open/);
    await dataSource(app).query(`DELETE FROM idempotency_keys WHERE id = $1`, [other.claimed.id]);
  });

  it('stores webhook signing secrets encrypted, before and after a rotation, and signs with them', async () => {
    const api = client(app, tenant.testKey);
    const created = await api.post<WebhookWithSecretDto>(WEBHOOKS, { url: receiver.url('/at-rest'), events: ['patient.created'] });
    expect(created.status).toBe(201);
    const secret = created.body.secret;
    const id = created.body.id;
    const raw = await rawRow(app, 'webhook_endpoints', 'id = $1', [id]);
    expect(raw).not.toContain(secret);
    expect(raw).not.toContain(secret.slice('whsec_'.length));
    const [row] = await dataSource(app).query<{ secret: string; previous_secret: string | null }[]>(
      `SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $1`,
      [id],
    );
    expect(row.secret).toMatch(ENCRYPTED);

    const rotated = await api.post<WebhookWithSecretDto>(`${WEBHOOKS}/${id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const rawAfter = await rawRow(app, 'webhook_endpoints', 'id = $1', [id]);
    for (const s of [secret, rotated.body.secret]) expect(rawAfter).not.toContain(s.slice('whsec_'.length));
    const [after] = await dataSource(app).query<{ secret: string; previous_secret: string | null }[]>(
      `SELECT secret, previous_secret FROM webhook_endpoints WHERE id = $1`,
      [id],
    );
    expect(after.secret).toMatch(ENCRYPTED);
    expect(after.previous_secret).toMatch(ENCRYPTED);

    expect((await api.post(`${WEBHOOKS}/${id}/test`)).status).toBe(202);
    const [got] = await eventually(async () => {
      expect(receiver.on('/at-rest')).toHaveLength(1);
      return receiver.on('/at-rest');
    });
    // Both the new and (during its grace period) the old secret verify the delivery.
    expect(new Webhook(rotated.body.secret).verify(got.body, got.headers)).toMatchObject({ type: 'webhook.test' });
    expect(new Webhook(secret).verify(got.body, got.headers)).toMatchObject({ type: 'webhook.test' });
  });

  it('migrates rows stored in plain text before encryption (EncryptSecretsAtRest1764030000000)', async () => {
    const api = client(app, tenant.testKey);
    const created = await api.post<WebhookWithSecretDto>(WEBHOOKS, { url: receiver.url('/legacy'), events: ['patient.created'] });
    const id = created.body.id;
    const legacy = 'whsec_bGVnYWN5LXBsYWluLXRleHQtc2VjcmV0LTAxMjM0NTY3ODk=';
    const previous = 'whsec_cHJldmlvdXMtcGxhaW4tdGV4dC1zZWNyZXQtMDEyMzQ1Njc=';
    await dataSource(app).query(
      `UPDATE webhook_endpoints SET secret = $2, previous_secret = $3, previous_secret_expires_at = $4::timestamptz + interval '1 hour' WHERE id = $1`,
      [id, legacy, previous, clock.now()],
    );
    const keyed = await api.post<CreatedApiKeyDto>(KEYS, { name: 'legacy answer' }, { 'idempotency-key': 'legacy-answer' });
    const [record] = await dataSource(app).query<{ id: string; response_body: string }[]>(
      `SELECT id, response_body FROM idempotency_keys WHERE tenant_id = $1 AND response_status = 201 AND response_body IS NOT NULL ORDER BY created_at DESC LIMIT 1`,
      [tenant.id],
    );
    await dataSource(app).query(`UPDATE idempotency_keys SET response_body = $2 WHERE id = $1`, [record.id, JSON.stringify(keyed.body)]);

    const runner = dataSource(app).createQueryRunner();
    try {
      // Without the application secret the migration refuses rather than leave plain text behind.
      const migration = new EncryptSecretsAtRest1764030000000();
      await expect(migration.up(runner)).rejects.toThrow(/APP_SECRET/);
      expect(await EncryptSecretsAtRest1764030000000.convert(runner, app.get(AppCrypto), 'encrypt')).toBeGreaterThanOrEqual(2);
      expect(await EncryptSecretsAtRest1764030000000.convert(runner, app.get(AppCrypto), 'encrypt')).toBe(0); // idempotent
    } finally {
      await runner.release();
    }

    const raw = await rawRow(app, 'webhook_endpoints', 'id = $1', [id]);
    expect(raw).not.toContain(legacy.slice(6));
    expect(raw).not.toContain(previous.slice(6));
    const scope = { tenantId: tenant.id, mode: 'test' as const };
    expect(await app.get(WebhookEndpointsRepository).secrets(scope, id)).toMatchObject({ secret: legacy, previousSecret: previous });
    expect(await rawRow(app, 'idempotency_keys', 'id = $1', [record.id])).not.toContain(keyed.body.key);
    const replayed = await api.post<CreatedApiKeyDto>(KEYS, { name: 'legacy answer' }, { 'idempotency-key': 'legacy-answer' });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.key).toBe(keyed.body.key);
  });
});
