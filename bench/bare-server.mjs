// The floor: Fastify + pg doing what the API does for the same requests, with no framework, no
// validation layer and no ORM. Every request looks its key up (SHA-256 of the bearer key → api_keys)
// and then runs the same query as the API. Loopback only.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = Fastify({ logger: false });
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const COLUMNS = `id, external_id AS "externalId", joining_code AS "joiningCode", email, phone, first_name AS "firstName",
  last_name AS "lastName", date_of_birth::text AS "dateOfBirth", gender, address, patient_type AS "patientType",
  patient_status AS "patientStatus", tags, custom_fields AS "customFields", email_opt_out AS "emailOptOut",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

async function auth(request, reply) {
  const m = /^Bearer\s+(\S+)$/.exec(request.headers.authorization ?? '');
  if (!m) return reply.code(401).send({ code: 'missing_api_key' });
  const hash = createHash('sha256').update(m[1]).digest('hex');
  const { rows } = await pool.query('SELECT tenant_id, mode, role, scopes, revoked_at, expires_at FROM api_keys WHERE key_hash = $1', [
    hash,
  ]);
  if (!rows[0] || rows[0].revoked_at) return reply.code(401).send({ code: 'invalid_api_key' });
  request.key = rows[0];
}

app.get('/api/v1/patients/:id', { preHandler: auth }, async (request, reply) => {
  const { rows } = await pool.query(`SELECT ${COLUMNS} FROM patients WHERE tenant_id = $1 AND mode = $2 AND id = $3`, [
    request.key.tenant_id,
    request.key.mode,
    request.params.id,
  ]);
  if (!rows[0]) return reply.code(404).send({ code: 'not_found' });
  return rows[0];
});

app.get('/api/v1/patients', { preHandler: auth }, async (request) => {
  const limit = Math.min(Number(request.query.limit ?? 50), 100);
  const { rows } = await pool.query(
    `SELECT ${COLUMNS} FROM patients WHERE tenant_id = $1 AND mode = $2 ORDER BY created_at DESC, id DESC LIMIT $3`,
    [request.key.tenant_id, request.key.mode, limit + 1],
  );
  return { patients: rows.slice(0, limit), nextCursor: rows.length > limit ? 'x' : null };
});

app.post('/api/v1/patients', { preHandler: auth }, async (request, reply) => {
  const b = request.body;
  const code = [...randomBytes(8)].map((x) => ALPHABET[x & 31]).join('');
  const now = new Date();
  const id = randomUUID();
  await pool.query(
    `INSERT INTO patients (id, tenant_id, mode, joining_code, email, phone, first_name, last_name, tags, custom_fields, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, '{}', $10, $10)`,
    [id, request.key.tenant_id, request.key.mode, code, b.email ?? null, b.phone ?? null, b.firstName, b.lastName, b.tags ?? [], now],
  );
  reply.code(201).header('location', `/api/v1/patients/${id}`);
  return { id, joiningCode: code, ...b, createdAt: now.toISOString(), updatedAt: now.toISOString() };
});

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3102) });
process.on(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
);
