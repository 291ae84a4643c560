// The floor: the work of the API's hot paths done the leanest way, with no framework, validation layer or
// ORM: Fastify + pg + ioredis. Per request, as the API: the bearer key hashed (SHA-256) and verified once,
// then served from an in-memory cache; when the API's limiter is on (the same RATE_LIMIT_* variables), one
// round trip to Redis running the API's own sliding-window script; one indexed query as a named prepared
// statement (a create writes the patient and its outbox event in one statement); the same response headers
// (security headers computed once, request id, ETag, Cache-Control, rate-limit fields) and an audit entry
// per request, encoded and loaded as the API does (COPY), in batches each second. Loopback only.
// Env: DATABASE_URL, REDIS_URL, REDIS_PREFIX, PORT (41402), RATE_LIMIT_{TEST,LIVE}_PER_{SECOND,HOUR,DAY}.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';
import Redis from 'ioredis';
import pg from 'pg';

const require = createRequire(import.meta.url);
const { securityHeaders } = require('../dist/common/http/responses/security-headers.js');
const { SLIDING_WINDOW_LUA } = require('../dist/common/traffic/sliding-window.storage.js');
const { entityTag } = require('../dist/common/http/responses/etag.js');
const { uuidv7 } = require('../dist/common/ids.js');
const { AuditCopyBuffer, AUDIT_COPY_SQL, copyData } = require('../dist/modules/audit/audit-copy-buffer.js');
const { from: copyFrom } = require('pg-copy-streams');

// The API's pool size; application_name tells the bench which backends' CPU is the floor's.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20, application_name: 'bench-floor' });
// The audit writer's own connection, as the API's (AuditLoader).
const auditPool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1, application_name: 'bench-floor/audit-writer' });
const prefix = process.env.REDIS_PREFIX ?? 'pm';
const windowsOf = (mode) =>
  [
    ['second', 1, process.env[`RATE_LIMIT_${mode}_PER_SECOND`]],
    ['hour', 3600, process.env[`RATE_LIMIT_${mode}_PER_HOUR`]],
    ['day', 86400, process.env[`RATE_LIMIT_${mode}_PER_DAY`]],
  ]
    .map(([name, seconds, limit]) => ({ name, seconds, limit: Number(limit ?? 0) }))
    .filter((w) => w.limit > 0);
const WINDOWS = { test: windowsOf('TEST'), live: windowsOf('LIVE') };
const redis = WINDOWS.test.length || WINDOWS.live.length ? new Redis(process.env.REDIS_URL, { enableAutoPipelining: true }) : null;
redis?.defineCommand('slidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
const instance = randomBytes(6).toString('hex');
let sequence = 0;

const SECURITY = securityHeaders();
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const COLUMNS = `id, external_id AS "externalId", joining_code AS "joiningCode", email, phone, first_name AS "firstName",
  last_name AS "lastName", date_of_birth::text AS "dateOfBirth", gender, address, patient_type AS "patientType",
  patient_status AS "patientStatus", tags, custom_fields AS "customFields", email_opt_out AS "emailOptOut",
  created_at AS "createdAt", updated_at AS "updatedAt", version`;
const GET_PATIENT = `SELECT ${COLUMNS} FROM patients WHERE tenant_id = $1 AND mode = $2 AND id = $3`;
const LIST_PATIENTS = `SELECT ${COLUMNS} FROM patients WHERE tenant_id = $1 AND mode = $2 ORDER BY created_at DESC, id DESC LIMIT $3`;
const CREATE_PATIENT = `WITH p AS (
    INSERT INTO patients (id, tenant_id, mode, joining_code, email, phone, first_name, last_name, tags, version, created_at, updated_at)
    VALUES ($3, $1, $2, $4, $5, $6, $7, $8, $9, 1, $10, $10) RETURNING id)
  INSERT INTO events (id, tenant_id, mode, type, payload, created_at) SELECT $11, $1, $2, 'patient.created', $12, $10 FROM p`;
const KEY = 'SELECT id, tenant_id, mode, role, scopes, revoked_at, expires_at FROM api_keys WHERE key_hash = $1';

const app = Fastify({ logger: false, genReqId: () => randomUUID() });
const keys = new Map();

/** Hash, cache, then (limiter on) one Redis call: what the API's guards do for a known key. */
async function authenticate(request, reply) {
  reply.headers(SECURITY).header('x-request-id', request.id);
  const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!m) return reply.code(401).send({ code: 'missing_api_key' });
  const hash = createHash('sha256').update(m[1]).digest('hex');
  let key = keys.get(hash);
  if (!key) {
    const { rows } = await pool.query({ name: 'key', text: KEY, values: [hash] });
    key = rows[0];
    if (!key || key.revoked_at) return reply.code(401).send({ code: 'invalid_api_key' });
    keys.set(hash, key);
  }
  request.key = key;
  const windows = WINDOWS[key.mode];
  if (!redis || !windows.length) return;
  const args = ['1', `${instance}:${(sequence = (sequence + 1) % 1e9)}`];
  for (const w of windows) args.push(w.seconds * 1_000_000, w.limit);
  const out = await redis.slidingWindow(`${prefix}:rl:key:${key.id}`, ...args);
  const count = out[2];
  reply.header('ratelimit', `"${windows[0].name}";r=${windows[0].limit - count};t=${Math.ceil(Math.max(0, out[3]) / 1e6)}`);
  if (out[0] !== 1) return reply.code(429).send({ code: 'rate_limited' });
}

// The API's own encoding (binary COPY tuples in off-heap chunks) and load (one COPY per batch, on a connection of its own).
const audit = new AuditCopyBuffer();
function audited(request, reply, action, resourceId) {
  audit.append({
    tenantId: request.key.tenant_id,
    mode: request.key.mode,
    at: Date.now(),
    apiKeyId: request.key.id,
    action,
    resourceType: 'patient',
    resourceId,
    status: reply.statusCode,
    requestId: request.id,
    ip: request.ip,
  });
}
setInterval(async () => {
  if (!audit.size) return;
  const chunks = audit.take();
  let client;
  try {
    client = await auditPool.connect();
    await pipeline(Readable.from(copyData(chunks)), client.query(copyFrom(AUDIT_COPY_SQL)));
  } catch (err) {
    process.stderr.write(`audit flush failed: ${err.message}\n`);
  } finally {
    client?.release();
  }
}, 1000).unref();

const toDto = ({ version: _version, createdAt, updatedAt, ...row }) => ({
  ...row,
  createdAt: createdAt.toISOString(),
  updatedAt: updatedAt.toISOString(),
});

app.get('/api/v1/patients/:id', { preHandler: authenticate }, async (request, reply) => {
  const { id } = request.params;
  reply.header('cache-control', 'no-store');
  const row = UUID.test(id)
    ? (await pool.query({ name: 'get', text: GET_PATIENT, values: [request.key.tenant_id, request.key.mode, id] })).rows[0]
    : undefined;
  audited(request, reply, 'patient.read', id);
  if (!row) return reply.code(404).send({ code: 'not_found' });
  reply.header('etag', entityTag(row.id, row.version));
  return toDto(row);
});

app.get('/api/v1/patients', { preHandler: authenticate }, async (request, reply) => {
  const limit = Math.min(Number(request.query.limit ?? 50), 100);
  reply.header('cache-control', 'no-store');
  const { rows } = await pool.query({ name: 'list', text: LIST_PATIENTS, values: [request.key.tenant_id, request.key.mode, limit + 1] });
  audited(request, reply, 'patient.list', null);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor =
    rows.length > limit ? Buffer.from(JSON.stringify([last.createdAt.toISOString(), last.id])).toString('base64url') : null;
  return { patients: items.map(toDto), nextCursor };
});

app.post('/api/v1/patients', { preHandler: authenticate }, async (request, reply) => {
  const b = request.body;
  if (typeof b?.firstName !== 'string' || typeof b?.lastName !== 'string') return reply.code(400).send({ code: 'validation_failed' });
  const code = [...randomBytes(8)].map((x) => ALPHABET[x & 31]).join('');
  const now = new Date();
  const id = uuidv7();
  const patient = {
    id,
    externalId: null,
    joiningCode: code,
    email: b.email ?? null,
    phone: b.phone ?? null,
    firstName: b.firstName,
    lastName: b.lastName,
    dateOfBirth: null,
    gender: null,
    address: null,
    patientType: 'prospect',
    patientStatus: 'active',
    tags: b.tags ?? [],
    customFields: {},
    emailOptOut: false,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  const { tenant_id: tenantId, mode } = request.key;
  await pool.query({
    name: 'create',
    text: CREATE_PATIENT,
    values: [
      tenantId,
      mode,
      id,
      code,
      patient.email,
      patient.phone,
      patient.firstName,
      patient.lastName,
      patient.tags,
      now,
      uuidv7(),
      patient,
    ],
  });
  reply.code(201).headers({ location: `/api/v1/patients/${id}`, etag: entityTag(id, 1), 'cache-control': 'no-store' });
  audited(request, reply, 'patient.create', id);
  return patient;
});

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 41402) });
process.on(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => pool.end())
      .then(() => redis?.quit())
      .then(() => process.exit(0)),
);
