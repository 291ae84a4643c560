import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What this migration needs of AppCrypto (src/common/crypto): `runMigrations` hands it to the migrations'
 * DataSource as `appCrypto`, made from APP_SECRET (migrations cannot import src/). Purposes and contexts
 * are those of webhook-endpoints.repository.ts and idempotency-keys.repository.ts, frozen here.
 */
export interface SecretsCipher {
  encrypt(purpose: string, plaintext: string, context: string): string;
  decrypt(purpose: string, value: string, context: string): string;
  encryptBytes(purpose: string, plaintext: Buffer, context: string): Buffer;
  decryptBytes(purpose: string, value: Buffer, context: string): Buffer;
}

const ENCRYPTED_TEXT = /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/;
const ENCRYPTED_BYTES_VERSION = 1; // a v8-serialised recovery point starts with 0xff, never 1

interface EndpointRow {
  id: string;
  tenant_id: string;
  mode: string;
  secret: string;
  previous_secret: string | null;
}

interface IdempotencyRow {
  id: string;
  tenant_id: string;
  mode: string;
  api_key_id: string;
  response_body: string | null;
  recovery_points: Buffer[];
}

type Direction = 'encrypt' | 'decrypt';

/**
 * Encrypts (or, for `down`, decrypts) the webhook signing secrets and the stored idempotency answers and
 * recovery points that are still in plain text. Idempotent: values already in the target form are left.
 */
async function convertStoredSecrets(q: QueryRunner, cipher: SecretsCipher | undefined, direction: Direction): Promise<number> {
  const isPlain = (v: string): boolean => !ENCRYPTED_TEXT.test(v);
  const needsText = (v: string | null): boolean => v !== null && (direction === 'encrypt' ? isPlain(v) : !isPlain(v));
  const needsBytes = (v: Buffer): boolean => (v[0] === ENCRYPTED_BYTES_VERSION) === (direction === 'decrypt');
  const endpoints = (await q.query(`SELECT id, tenant_id, mode, secret, previous_secret FROM webhook_endpoints`)) as EndpointRow[];
  const answers = (await q.query(
    `SELECT id, tenant_id, mode, api_key_id, response_body, recovery_points FROM idempotency_keys`,
  )) as IdempotencyRow[];
  const endpointsToDo = endpoints.filter((r) => needsText(r.secret) || needsText(r.previous_secret));
  const answersToDo = answers.filter((r) => needsText(r.response_body) || r.recovery_points.some(needsBytes));
  if (!endpointsToDo.length && !answersToDo.length) return 0;
  if (!cipher) {
    throw new Error('this migration encrypts stored secrets with APP_SECRET: run it with `node dist/cli.js migrations:run`');
  }
  const text = (purpose: string, v: string | null, context: string): string | null =>
    v === null || !needsText(v) ? v : direction === 'encrypt' ? cipher.encrypt(purpose, v, context) : cipher.decrypt(purpose, v, context);
  const bytes = (purpose: string, v: Buffer, context: string): Buffer =>
    !needsBytes(v) ? v : direction === 'encrypt' ? cipher.encryptBytes(purpose, v, context) : cipher.decryptBytes(purpose, v, context);

  for (const r of endpointsToDo) {
    const context = `webhook_endpoints:${r.tenant_id}:${r.mode}:${r.id}`;
    await q.query(`UPDATE webhook_endpoints SET secret = $2, previous_secret = $3 WHERE id = $1`, [
      r.id,
      text('webhook-secret', r.secret, context),
      text('webhook-secret', r.previous_secret, context),
    ]);
  }
  for (const r of answersToDo) {
    const context = `idempotency_keys:${r.tenant_id}:${r.mode}:${r.api_key_id}:${r.id}`;
    await q.query(`UPDATE idempotency_keys SET response_body = $2, recovery_points = $3::bytea[] WHERE id = $1`, [
      r.id,
      text('idempotency-response', r.response_body, context),
      r.recovery_points.map((p) => bytes('idempotency-recovery-point', p, context)),
    ]);
  }
  return endpointsToDo.length + answersToDo.length;
}

const cipherOf = (q: QueryRunner): SecretsCipher | undefined => (q.connection as unknown as { appCrypto?: SecretsCipher }).appCrypto;

/** Webhook signing secrets and stored idempotency answers (which may carry an API key) encrypted at rest. */
export class EncryptSecretsAtRest1764030000000 implements MigrationInterface {
  name = 'EncryptSecretsAtRest1764030000000';

  /** The conversion alone (TypeORM takes every export of a migration file for a migration, hence a static). */
  static readonly convert = convertStoredSecrets;

  async up(q: QueryRunner): Promise<void> {
    // An encrypted secret (v1.<kid>.<base64url>) is longer than the 100 characters kept for a plain one.
    await q.query(`ALTER TABLE webhook_endpoints ALTER COLUMN secret TYPE text, ALTER COLUMN previous_secret TYPE text`);
    await convertStoredSecrets(q, cipherOf(q), 'encrypt');
  }

  async down(q: QueryRunner): Promise<void> {
    await convertStoredSecrets(q, cipherOf(q), 'decrypt');
    await q.query(`ALTER TABLE webhook_endpoints ALTER COLUMN secret TYPE varchar(100), ALTER COLUMN previous_secret TYPE varchar(100)`);
  }
}
