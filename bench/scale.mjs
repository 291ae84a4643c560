// Scale benchmark: does any list, filter or search get slower as a tenant grows? Builds, by SQL
// (generate_series, indexes dropped during the load and rebuilt from their own definitions), one tenant of
// N realistic patients in live mode and 20 small tenants beside it, with 5 audit entries and 1 event per
// patient, an appointment for every second patient, an email message for every other one, a form
// submission for every third one and a webhook delivery for every second event. Then runs every list,
// filter and search route through the built API with autocannon (4 connections), after serving each route
// 400 times unmeasured, and prints each route's mean and p99 at every size, the growth factor between the
// first and the last size, and the CPU a request of the API, PostgreSQL and autocannon.
// Sizes are built in ascending order by adding patients (patient i is the same row at every size), so the
// 1,000,000 set contains the 100,000 one.
// Needs `npm run build` first, PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379.
//
// Usage: node bench/scale.mjs [--sizes 100000,1000000] [--seconds 4] [--rounds 1] [--routes list,email,...]
//                             [--database pm_bench_scale] [--keep] [--build-only]
// Each route runs against every size in turn, the sizes' APIs side by side (ports 41461, 41462 …).
// Each size has its database, `<database>_<size>` (default pm_bench_scale_100000 …), copied from the
// previous size's and grown; what one already holds is reused (a million patients take minutes to build).
// --keep leaves them in place at the end (for the next run); without it, they are dropped.
import { execFileSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { ADMIN_URL, cannon, cpuMeter, log, median, openBench, waitFor, withBench } from './lib.mjs';

const { values: opts } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,1000000' },
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '1' },
    routes: { type: 'string', default: '' },
    database: { type: 'string', default: 'pm_bench_scale' },
    keep: { type: 'boolean', default: false },
    'build-only': { type: 'boolean', default: false },
  },
});
const SIZES = opts.sizes.split(',').map(Number);
const SECONDS = Number(opts.seconds);
const ROUNDS = Number(opts.rounds);
const API_PORT = 41461;
const SMALL_TENANTS = 20;
const SMALL_PATIENTS = 2_000;
const PROVIDERS = 20;
const CHUNK = 100_000;
/** The tables whose secondary indexes are dropped while loading and rebuilt after (far faster than maintaining them row by row). */
const LOADED = ['patients', 'audit_log', 'events', 'appointments', 'email_messages', 'form_submissions', 'webhook_deliveries'];

const FIRST = `Ada Ben Chloe Dmitri Eve Farah Gus Hana Ivan Jules Kofi Lena Mateo Noor Omar Priya Quinn Rosa Sami Tara
  Umar Vera Wen Xavier Yara Zoe Amir Bella Carlos Dana Elif Felix Gita Hugo Ines Jonas Kira Liam Maya Nils Olga Pablo
  Rhea Sven Tomas Uma Vik Wanda Yusuf Zara Anna John Mary James Linda Robert Sarah David Emma Michael`.split(/\s+/);
const LAST = `Okafor Smith Garcia Muller Nakamura Rossi Kowalski Dubois Olsen Haddad Silva Nguyen Johnson Williams Brown
  Jones Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin
  Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott Torres
  Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell Carter Roberts Kim Patel Shah Singh Chen Wang
  Li Zhang Liu Yamamoto Tanaka Suzuki Ivanov Petrov Novak Horvat Kovacs Nagy Jensen Hansen Larsen Berg Lindqvist
  Virtanen Korhonen Murphy Kelly Byrne Walsh Ryan Costa Santos Oliveira Pereira Ferreira Fischer Weber Becker Wagner`.split(/\s+/);
const sqlArray = (xs) => `ARRAY[${xs.map((x) => `'${x}'`).join(',')}]`;

/** A deterministic pseudo-random integer in [0, mod) for row i and salt s (the same row at every size). */
const rnd = (i, salt, mod) => `((((${i})::bigint * 2654435761 + ${salt} * 97531) % 1000000007) % ${mod})`;
const DAY_MS = 86_400_000;

/**
 * Patients [from, to) of one tenant and mode and their rows elsewhere, as INSERT … SELECT statements.
 * Ids are derived from (tenant, i), so rows of other tables can name them without a join.
 */
function chunkStatements(t, from, to, anchor) {
  const series = `generate_series(${from}, ${to - 1}) AS g(i)`;
  // md5 as a version-4 UUID (the API's validators refuse other versions).
  const uuid = (text) => `overlay(overlay(md5(${text}) placing '4' from 13) placing '8' from 17)::uuid`;
  const pid = (i) => uuid(`'${t.tenantId}p' || ${i}`);
  const eid = (i) => uuid(`'${t.tenantId}e' || ${i}`);
  // Created over the last 8 years; a fifth updated since, some of them in the last week.
  const created = (i) => `to_timestamp((${anchor} - ${rnd(i, 1, 8 * 365 * DAY_MS)})::double precision / 1000)`;
  const first = (i) => `(${sqlArray(FIRST)})[1 + ${rnd(i, 2, FIRST.length)}]`;
  const last = (i) => `(${sqlArray(LAST)})[1 + ${rnd(i, 3, LAST.length)}]`;
  return [
    `INSERT INTO patients (id, tenant_id, mode, external_id, joining_code, email, phone, first_name, last_name, date_of_birth,
        gender, address, patient_type, patient_status, tags, custom_fields, email_opt_out, version, created_at, updated_at)
     SELECT ${pid('i')}, '${t.tenantId}', '${t.mode}',
       CASE WHEN ${rnd('i', 4, 10)} < 7 THEN 'crm-' || i END,
       translate(lpad(i::text, 8, '0'), '0123456789', 'QXZVJKWYPU'),
       CASE WHEN ${rnd('i', 5, 20)} > 0 THEN lower(${first('i')} || '.' || ${last('i')}) || i || '@' || (ARRAY['example.com','mail.example.org','clinic-patients.example.net'])[1 + ${rnd('i', 6, 3)}] END,
       CASE WHEN ${rnd('i', 7, 10)} > 0 THEN '+1' || (ARRAY['415','628','510','650','212','617'])[1 + ${rnd('i', 8, 6)}] || (2000000 + ${rnd('i', 9, 8000000)})::text END,
       ${first('i')}, ${last('i')} || CASE WHEN ${rnd('i', 10, 25)} = 0 THEN '-Lee' ELSE '' END,
       CASE WHEN ${rnd('i', 11, 50)} > 0 THEN date '1930-01-01' + ${rnd('i', 12, 90 * 365)}::int END,
       (ARRAY['female','male','female','male','other',NULL])[1 + ${rnd('i', 13, 6)}],
       (1 + ${rnd('i', 14, 999)}) || ' ' || (ARRAY['Main St','Oak Ave','Mission St','Valencia St','Market St','Pine St'])[1 + ${rnd('i', 15, 6)}] || ', San Francisco, CA',
       (ARRAY['patient','patient','patient','patient','prospect','prospect','lead'])[1 + ${rnd('i', 16, 7)}],
       (ARRAY['active','active','active','active','active','active','inactive','inactive','archived','discharged'])[1 + ${rnd('i', 17, 10)}],
       ARRAY['cohort-' || ${rnd('i', 18, 20)}]
         || CASE WHEN ${rnd('i', 19, 20)} = 0 THEN ARRAY['vip'] ELSE '{}'::text[] END
         || CASE WHEN ${rnd('i', 20, 3)} = 0 THEN ARRAY['newsletter'] ELSE '{}'::text[] END
         || CASE WHEN ${rnd('i', 21, 1000)} = 0 THEN ARRAY['trial-cardio'] ELSE '{}'::text[] END,
       CASE WHEN ${rnd('i', 22, 5)} < 3 THEN jsonb_build_object('insurer', (ARRAY['Aetna','Cigna','Kaiser','Blue Shield'])[1 + ${rnd('i', 23, 4)}], 'memberNo', 'M' || i) ELSE '{}'::jsonb END,
       ${rnd('i', 24, 30)} = 0, 1,
       ${created('i')},
       CASE WHEN ${rnd('i', 25, 5)} = 0 THEN ${created('i')} + (to_timestamp(${anchor}::double precision / 1000) - ${created('i')}) * (${rnd('i', 26, 1000)}::double precision / 1000) ELSE ${created('i')} END
     FROM ${series}`,
    // 5 audit entries a patient: created, read three times, updated; over the time since its creation.
    `INSERT INTO audit_log (id, tenant_id, mode, at, api_key_id, action, resource_type, resource_id, status, request_id, ip)
     SELECT md5('${t.tenantId}a' || i || '.' || k)::uuid, '${t.tenantId}', '${t.mode}',
       ${created('i')} + (to_timestamp(${anchor}::double precision / 1000) - ${created('i')}) * (k / 5.0),
       ${t.keyId ? `'${t.keyId}'` : 'NULL'}, (ARRAY['patient.create','patient.read','patient.read','patient.read','patient.update'])[k + 1],
       'patient', ${pid('i')}::text, CASE WHEN k = 0 THEN 201 ELSE 200 END, md5('r' || i || '.' || k), '10.0.' || (i % 250) || '.' || k
     FROM ${series} CROSS JOIN generate_series(0, 4) AS k`,
    `INSERT INTO events (id, tenant_id, mode, type, payload, created_at, dispatched_at)
     SELECT ${eid('i')}, '${t.tenantId}', '${t.mode}', CASE WHEN ${rnd('i', 25, 5)} = 0 THEN 'patient.updated' ELSE 'patient.created' END,
       jsonb_build_object('id', ${pid('i')}, 'firstName', ${first('i')}, 'lastName', ${last('i')}), ${created('i')}, ${created('i')}
     FROM ${series}`,
    // Every second patient: an appointment on a 20-minute grid of each provider's time (a permutation, so
    // slots never overlap), 18 months back to 6 months ahead; past ones mostly completed.
    `INSERT INTO appointments (id, tenant_id, mode, patient_id, provider_id, starts_at, ends_at, duration, status, type, notes, created_at, updated_at, manage_id)
     SELECT md5('${t.tenantId}ap' || i)::uuid, '${t.tenantId}', '${t.mode}', ${pid('i')}, (ARRAY[${t.providerIds.map((p) => `'${p}'::uuid`).join(',')}])[1 + (i / 2) % ${t.providerIds.length}],
       s.at, s.at + interval '15 minutes', 15,
       CASE WHEN s.at > to_timestamp(${anchor}::double precision / 1000) THEN (ARRAY['scheduled','confirmed'])[1 + ${rnd('i', 27, 2)}]
            ELSE (ARRAY['completed','completed','completed','completed','completed','completed','completed','cancelled','no_show','completed'])[1 + ${rnd('i', 28, 10)}] END,
       (ARRAY['Check-up','Follow-up','Consultation'])[1 + ${rnd('i', 29, 3)}], NULL, s.at - interval '14 days', s.at - interval '14 days',
       left(md5('${t.tenantId}ml' || i), 16)
     FROM ${series}
     CROSS JOIN LATERAL (SELECT to_timestamp(${anchor}::double precision / 1000) - interval '18 months'
        + ((((i / 2) / ${t.providerIds.length})::bigint * 7919) % 52560) * interval '20 minutes' AS at) s
     WHERE i % 2 = 0`,
    `INSERT INTO email_messages (id, tenant_id, mode, patient_id, to_address, subject, text_body, status, attempts, transport,
        next_attempt_at, sent_at, created_at, updated_at)
     SELECT md5('${t.tenantId}m' || i)::uuid, '${t.tenantId}', '${t.mode}', ${pid('i')}, 'patient' || i || '@example.com',
       'Your appointment', 'Dear patient, see you soon.',
       (ARRAY['sent','sent','sent','sent','sent','sent','sent','sent','sent','sent','sent','sent','sent','sent','sent','sent','sent','sent','failed','suppressed'])[1 + ${rnd('i', 30, 20)}],
       1, 'smtp', ${created('i')}, ${created('i')}, ${created('i')}, ${created('i')}
     FROM ${series} WHERE i % 2 = 1`,
    `INSERT INTO form_submissions (id, tenant_id, mode, form_id, form_version, patient_id, answers, created_at, updated_at)
     SELECT md5('${t.tenantId}f' || i)::uuid, '${t.tenantId}', '${t.mode}', '${t.formId}', 1, ${pid('i')},
       jsonb_build_object('reason', (ARRAY['Check-up','Back pain','Other'])[1 + ${rnd('i', 31, 3)}], 'pain_level', ${rnd('i', 32, 11)}),
       ${created('i')}, ${created('i')}
     FROM ${series} WHERE i % 3 = 0`,
    ...(t.endpointId
      ? [
          `INSERT INTO webhook_deliveries (id, tenant_id, mode, endpoint_id, event_id, status, attempt_count, max_attempts, last_status_code, created_at, updated_at, event_type)
           SELECT md5('${t.tenantId}d' || i)::uuid, '${t.tenantId}', '${t.mode}', '${t.endpointId}', ${eid('i')}, 'succeeded', 1, 8, 200,
             ${created('i')}, ${created('i')}, CASE WHEN ${rnd('i', 25, 5)} = 0 THEN 'patient.updated' ELSE 'patient.created' END
           FROM ${series} WHERE i % 2 = 0`,
        ]
      : []),
  ];
}

/** Drops the loaded tables' secondary indexes (not those behind constraints) and answers how to rebuild them. */
async function dropIndexes(db) {
  const { rows } = await db.query(
    `SELECT i.indexname, i.indexdef FROM pg_indexes i
      WHERE i.schemaname = 'public' AND i.tablename = ANY($1)
        AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
    [LOADED],
  );
  for (const r of rows) await db.query(`DROP INDEX "${r.indexname}"`);
  return rows.map((r) => r.indexdef);
}

async function build(bench, db, meta, size) {
  const big = meta.big;
  const have = Number((await db.query(`SELECT count(*) FROM patients WHERE tenant_id = $1`, [big.tenantId])).rows[0].count);
  const smallDone = Number((await db.query(`SELECT count(*) FROM patients WHERE tenant_id <> $1`, [big.tenantId])).rows[0].count);
  if (have >= size && smallDone > 0) return;
  const t0 = performance.now();
  await db.query(`SET maintenance_work_mem = '256MB'`);
  await db.query(`SET synchronous_commit = off`);
  const rebuild = await dropIndexes(db);
  if (!smallDone) {
    for (const small of meta.small) for (const s of chunkStatements(small, 0, SMALL_PATIENTS, meta.anchor)) await db.query(s);
  }
  for (let from = have; from < size; from += CHUNK) {
    const to = Math.min(size, from + CHUNK);
    for (const s of chunkStatements(big, from, to, meta.anchor)) await db.query(s);
    log(`  patients ${to.toLocaleString('en')} of ${size.toLocaleString('en')} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }
  // A partitioned table's index reads `ON ONLY` in pg_indexes: rebuilt that way it would cover no partition.
  for (const def of rebuild) await db.query(def.replace(' ON ONLY ', ' ON '));
  // Rows in page order on disk, as in production, where created_at is the server's time of the insert (the
  // load above writes them in patient order with created_at spread at random, so every walk read one page a row).
  await db.query(`CLUSTER patients USING "IDX_PATIENTS_TENANT_MODE_CREATED"`);
  await db.query(`UPDATE forms SET submissions_count = (SELECT count(*) FROM form_submissions s WHERE s.form_id = forms.id)`);
  await db.query('VACUUM (ANALYZE)');
  log(`built ${size.toLocaleString('en')} patients in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
}

/** The tenants, providers, form and webhook endpoint, made once per database (kept in scale_bench_meta). */
async function setUp(bench, db) {
  await db.query(`CREATE TABLE IF NOT EXISTS scale_bench_meta (id int PRIMARY KEY, meta jsonb NOT NULL)`);
  const stored = (await db.query(`SELECT meta FROM scale_bench_meta WHERE id = 1`)).rows[0];
  if (stored) return stored.meta;
  const { tenantId, keys } = bench.createTenant('Scale Clinic');
  const keyId = (await db.query(`SELECT id FROM api_keys WHERE tenant_id = $1 AND mode = 'live'`, [tenantId])).rows[0].id;
  const api = bench.start('dist/main.js', { PORT: String(API_PORT) });
  const base = `http://127.0.0.1:${API_PORT}/api/v1`;
  await waitFor(`http://127.0.0.1:${API_PORT}/health/ready`);
  const headers = { authorization: `Bearer ${keys.live}`, 'content-type': 'application/json' };
  const post = async (path, body) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const hours = [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start: '08:00', end: '18:00' }));
  const providerIds = [];
  for (let p = 0; p < PROVIDERS; p++) {
    providerIds.push(
      (await post('/scheduling/providers', { name: `Dr. Provider ${p}`, timezone: 'America/Los_Angeles', workingHours: hours })).id,
    );
  }
  const formFields = [
    { id: 'reason', label: 'Reason', type: 'select', required: true, options: ['Check-up', 'Back pain', 'Other'] },
    { id: 'pain_level', label: 'Pain level', type: 'number', required: false, min: 0, max: 10 },
  ];
  const formId = (await post('/forms', { name: 'Intake', slug: 'intake', fields: formFields })).id;
  const endpointId = (await post('/webhooks', { url: 'http://127.0.0.1:9/hooks/scale', events: ['patient.created', 'patient.updated'] }))
    .id;
  await bench.stop(api);
  const anchor = Date.now();
  const big = { tenantId, mode: 'live', keyId, providerIds, formId, endpointId };
  const small = [];
  for (let n = 0; n < SMALL_TENANTS; n++) {
    const id = (
      await db.query(`INSERT INTO tenants (id, name, created_at) VALUES (gen_random_uuid(), $1, now()) RETURNING id`, [`Small ${n}`])
    ).rows[0].id;
    const provider = (
      await db.query(
        `INSERT INTO providers (id, tenant_id, mode, name, timezone, working_hours, is_active, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, 'live', 'Dr. Small', 'UTC', '[]', true, now(), now()) RETURNING id`,
        [id],
      )
    ).rows[0].id;
    const form = (
      await db.query(
        `INSERT INTO forms (id, tenant_id, mode, name, slug, is_active, fields, version, submissions_count, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, 'live', 'Intake', 'intake', true, $2, 1, 0, now(), now()) RETURNING id`,
        [id, JSON.stringify(formFields)],
      )
    ).rows[0].id;
    await db.query(
      `INSERT INTO form_versions (id, tenant_id, mode, form_id, version, fields, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'live', $2, 1, $3, now(), now())`,
      [id, form, JSON.stringify(formFields)],
    );
    small.push({ tenantId: id, mode: 'live', keyId: null, providerIds: [provider], formId: form, endpointId: null });
  }
  const meta = { big, small, anchor };
  await db.query(`INSERT INTO scale_bench_meta (id, meta) VALUES (1, $1)`, [JSON.stringify(meta)]);
  return meta;
}

/** Values the routes pick from at random: real emails, externalIds, phones, ids of the big tenant. */
async function samples(db, meta) {
  const t = meta.big.tenantId;
  const pick = async (sql) => (await db.query(sql, [t])).rows;
  const patients = await pick(
    `SELECT id, email, external_id, phone, last_name, first_name FROM patients TABLESAMPLE SYSTEM (1)
      WHERE tenant_id = $1 AND email IS NOT NULL AND external_id IS NOT NULL AND phone IS NOT NULL
        AND id::text ~ '^.{14}[1-8].{4}[89ab]' LIMIT 500`,
  );
  const jobs = await pick(`SELECT id FROM patient_import_jobs WHERE tenant_id = $1 LIMIT 1`);
  return { patients, jobId: jobs[0]?.id };
}

function routes(meta, s, anchor) {
  const any = (xs) => xs[Math.floor(Math.random() * xs.length)];
  const p = () => any(s.patients);
  const day = (offsetDays) => new Date(anchor - offsetDays * DAY_MS).toISOString();
  const enc = encodeURIComponent;
  const big = meta.big;
  return [
    ['list', 'GET /patients?limit=50', () => '/patients?limit=50'],
    ['page2', 'GET /patients?cursor=… (page 2)', null],
    ['get', 'GET /patients/{id}', () => `/patients/${p().id}`],
    ['email', 'GET /patients?email=<exact>', () => `/patients?email=${enc(p().email.toUpperCase())}`],
    ['externalId', 'GET /patients?externalId=…', () => `/patients?externalId=${enc(p().external_id)}`],
    ['searchName', 'GET /patients?search=<last name>', () => `/patients?search=${enc(p().last_name.toLowerCase())}`],
    ['searchFull', 'GET /patients?search=<first last>', () => `/patients?search=${enc(`${p().first_name} ${p().last_name}`)}`],
    ['searchPhone', 'GET /patients?search=<7 phone digits>', () => `/patients?search=${p().phone.slice(-7)}`],
    ['searchEmail', 'GET /patients?search=<email local part>', () => `/patients?search=${enc(p().email.split('@')[0])}`],
    ['tagVip', 'GET /patients?tags=vip (5 %)', () => '/patients?tags=vip'],
    ['tagRare', 'GET /patients?tags=trial-cardio (0.1 %)', () => '/patients?tags=trial-cardio'],
    ['type', 'GET /patients?patientType=lead', () => '/patients?patientType=lead'],
    ['status', 'GET /patients?patientStatus=archived', () => '/patients?patientStatus=archived'],
    ['typeAge', 'GET /patients?patientType=patient&ageMin=30&ageMax=40', () => '/patients?patientType=patient&ageMin=30&ageMax=40'],
    ['age', 'GET /patients?ageMin=95', () => '/patients?ageMin=95'],
    ['created', 'GET /patients?dateFrom&dateTo (30 days)', () => `/patients?dateFrom=${day(400)}&dateTo=${day(370)}`],
    ['updated', 'GET /patients?updatedSince=<7 days ago>', () => `/patients?updatedSince=${day(7)}`],
    ['noEmail', 'GET /patients?hasEmail=false', () => '/patients?hasEmail=false'],
    ['gender', 'GET /patients?gender=other', () => '/patients?gender=other'],
    ['tagsCount', 'GET /patients/tags', () => '/patients/tags'],
    ['appointments', 'GET /scheduling/appointments', () => '/scheduling/appointments'],
    ['apptPatient', 'GET /scheduling/appointments?patientId=…', () => `/scheduling/appointments?patientId=${p().id}`],
    [
      'apptProvider',
      'GET /scheduling/appointments?providerId&startDate (next week)',
      () => `/scheduling/appointments?providerId=${any(big.providerIds)}&startDate=${day(-1)}&endDate=${day(-8)}`,
    ],
    ['apptStatus', 'GET /scheduling/appointments?status=scheduled', () => '/scheduling/appointments?status=scheduled'],
    ['messages', 'GET /emails/messages', () => '/emails/messages'],
    ['msgPatient', 'GET /emails/messages?patientId=…', () => `/emails/messages?patientId=${p().id}`],
    ['msgStatus', 'GET /emails/messages?status=failed', () => '/emails/messages?status=failed'],
    ['submissions', 'GET /forms/{id}/submissions', () => `/forms/${big.formId}/submissions`],
    ['subPatient', 'GET /forms/{id}/submissions?patientId=…', () => `/forms/${big.formId}/submissions?patientId=${p().id}`],
    ['events', 'GET /events', () => '/events'],
    ['eventsType', 'GET /events?type=patient.updated', () => '/events?type=patient.updated'],
    ['eventsRange', 'GET /events?from&to (a day)', () => `/events?from=${day(200)}&to=${day(199)}`],
    ['audit', 'GET /settings/audit-log', () => '/settings/audit-log'],
    ['auditResource', 'GET /settings/audit-log?resourceId=<patient>', () => `/settings/audit-log?resourceId=${p().id}`],
    ['auditAction', 'GET /settings/audit-log?action=patient.update', () => '/settings/audit-log?action=patient.update'],
    ['auditKey', 'GET /settings/audit-log?apiKeyId=…', () => `/settings/audit-log?apiKeyId=${big.keyId}`],
    ['accessLog', 'GET /patients/{id}/access-log', () => `/patients/${p().id}/access-log`],
    ['deliveries', 'GET /webhooks/{id}/deliveries', () => `/webhooks/${big.endpointId}/deliveries`],
  ].map(([key, name, path]) => ({ key, name, path }));
}

/**
 * An API on this bench's database (port `port`) with a fresh key (keys are stored hashed: a reused database
 * cannot hand back an earlier one), and the values its routes pick from.
 */
async function serve(bench, port) {
  const db = await bench.sql();
  const meta = (await db.query(`SELECT meta FROM scale_bench_meta WHERE id = 1`)).rows[0].meta;
  const created = JSON.parse(
    execFileSync(process.execPath, ['dist/cli.js', 'keys:create', '--tenant', meta.big.tenantId, '--mode', 'live'], {
      env: bench.env,
    }).toString(),
  );
  const headers = { authorization: `Bearer ${created.apiKeys[0].key}` };
  const api = bench.start('dist/main.js', { PORT: String(port) });
  const base = `http://127.0.0.1:${port}/api/v1`;
  let s;
  let first;
  try {
    await waitFor(`http://127.0.0.1:${port}/health/ready`);
    s = await samples(db, meta);
    first = await fetch(`${base}/patients?limit=50`, { headers }).then((r) => r.json());
  } catch (err) {
    await db.end(); // kept open for the CPU meter only once the API serves
    throw err;
  }
  const byKey = new Map(routes(meta, s, meta.anchor).map((r) => [r.key, r]));
  byKey.get('page2').path = () => `/patients?limit=50&cursor=${encodeURIComponent(first.nextCursor)}`;
  // What each request costs in CPU, the API's, its database's and autocannon's: the mean at 4 connections
  // is about that sum over the machine's cores, so this says where a slow machine's mean goes.
  const meter = cpuMeter(db, bench.database, { api: api.pid, autocannon: process.pid });
  return { base, headers, byKey, meter, db };
}

/** 400 requests of one route at 4 connections, unmeasured. */
async function warmUp(api, key) {
  const r = api.byKey.get(key);
  await cannon({ url: api.base, headers: api.headers, connections: 4, amount: 400, paths: () => `/api/v1${r.path()}` });
}

/** One route against one API: a 1 s warm-up, then `SECONDS` of autocannon at 4 connections. */
async function measureRoute(api, key) {
  const r = api.byKey.get(key);
  const check = await fetch(`${api.base}${r.path()}`, { headers: api.headers });
  if (check.status !== 200) throw new Error(`${r.name}: ${check.status} ${await check.text()}`);
  const target = { url: api.base, headers: api.headers, connections: 4, paths: () => `/api/v1${r.path()}` };
  await cannon({ ...target, duration: 1 }); // warm-up: connections, plans, caches
  await api.meter.start();
  const result = await cannon({ ...target, duration: SECONDS });
  const cpu = await api.meter.stop(result.total);
  return { ...result, cpu: { api: cpu.api, pg: cpu['pg:others'], autocannon: cpu.autocannon } };
}

// Build: one database per size (`<database>_<size>`), each first copied from the next smaller one (CREATE
// DATABASE … TEMPLATE) and grown, kept for the measurements and later runs.
const env = { WORKERS: 'off', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }; // nothing queued; the endpoint is a loopback address
const nameOf = (size) => `${opts.database}_${size}`;
for (const [k, size] of SIZES.entries()) {
  if (k > 0) {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    const exists = (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [nameOf(size)])).rowCount > 0;
    if (!exists) await admin.query(`CREATE DATABASE ${nameOf(size)} TEMPLATE ${nameOf(SIZES[k - 1])}`);
    await admin.end();
  }
  await withBench(
    'scale',
    env,
    async (bench) => {
      bench.migrate();
      const db = await bench.sql();
      try {
        const meta = await setUp(bench, db);
        log(`${nameOf(size)}: ${size.toLocaleString('en')} patients`);
        await build(bench, db, meta, size);
      } finally {
        await db.end();
      }
    },
    { database: nameOf(size), keep: true },
  );
  if (process.exitCode) break;
}

// Measure: an API per size, side by side; each route runs against every size in turn (the order
// alternating by round), so the machine's drifting load weighs on the sizes alike.
const at = Object.fromEntries(SIZES.map((size) => [size, {}]));
if (!opts['build-only'] && !process.exitCode) {
  const benches = [];
  const apis = [];
  try {
    for (const [k, size] of SIZES.entries()) {
      const bench = await openBench('scale', env, { database: nameOf(size), keep: true });
      benches.push(bench);
      apis.push(await serve(bench, API_PORT + k));
    }
    const keys = [...apis[0].byKey.keys()].filter((key) => !opts.routes || opts.routes.split(',').includes(key));
    // Every route once through each fresh API before any is measured, so that the first routes do not pay for
    // the JIT's warm-up (which took a third more of the API's CPU a request for the first route measured).
    for (const api of apis) for (const key of keys) await warmUp(api, key);
    for (const key of keys) {
      const runs = SIZES.map(() => []);
      for (let round = 0; round < ROUNDS; round++) {
        const order = SIZES.map((_, k) => k);
        if (round % 2) order.reverse();
        for (const k of order) runs[k].push(await measureRoute(apis[k], key));
      }
      for (const [k, size] of SIZES.entries()) {
        const rs = runs[k];
        at[size][key] = {
          name: apis[k].byKey.get(key).name,
          mean: median(rs.map((x) => x.mean)),
          p99: median(rs.map((x) => x.p99)),
          errors: rs.reduce((n, x) => n + x.errors, 0),
          load: rs[0].load,
          cpu: Object.fromEntries(['api', 'pg', 'autocannon'].map((c) => [c, median(rs.map((x) => x.cpu[c]))])),
        };
      }
      const cpu = (c) => `CPU µs a request: API ${c.api.toFixed(0)}, PostgreSQL ${c.pg.toFixed(0)}, autocannon ${c.autocannon.toFixed(0)}`;
      log(
        `${at[SIZES[0]][key].name}: ${SIZES.map((size) => `${size.toLocaleString('en')}: mean ${at[size][key].mean.toFixed(2)} ms, p99 ${at[size][key].p99} ms (${cpu(at[size][key].cpu)})`).join('; ')} (load ${at[SIZES[0]][key].load.toFixed(1)})`,
      );
    }
  } catch (err) {
    log(err.stack ?? String(err));
    process.exitCode = 1;
  } finally {
    for (const api of apis) await api.db.end();
    for (const bench of benches) await bench.close();
  }
}
if (!opts.keep) {
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  for (const size of SIZES) await admin.query(`DROP DATABASE IF EXISTS ${nameOf(size)} WITH (FORCE)`);
  await admin.end();
}

if (!opts['build-only'] && !process.exitCode) {
  const [lo, hi] = [SIZES[0], SIZES[SIZES.length - 1]];
  const n = (x) => x.toLocaleString('en');
  const lines = [
    `autocannon, 4 connections, ${SECONDS} s per route after a 1 s warm-up, median of ${ROUNDS} run(s); target at ${n(hi)}: mean < 10 ms, p99 < 60 ms, mean within 2× of ${n(lo)}`,
    '',
    `| Route | ${SIZES.map((x) => `mean ms at ${n(x)}`).join(' | ')} | ${SIZES.map((x) => `p99 ms at ${n(x)}`).join(' | ')} | growth (mean) | CPU µs a request at ${n(hi)}: API / PostgreSQL / autocannon | met |`,
    `|---|${SIZES.map(() => '---:').join('|')}|${SIZES.map(() => '---:').join('|')}|---:|---:|---|`,
    ...Object.keys(at[hi] ?? {}).map((key) => {
      const a = at[lo]?.[key];
      const b = at[hi][key];
      const growth = a ? b.mean / a.mean : NaN;
      const met = b.mean < 10 && b.p99 < 60 && !(growth > 2) && !b.errors ? 'yes' : 'no';
      return `| ${b.name} | ${SIZES.map((x) => at[x]?.[key]?.mean.toFixed(2) ?? '').join(' | ')} | ${SIZES.map((x) => at[x]?.[key]?.p99 ?? '').join(' | ')} | ${growth.toFixed(2)}× | ${['api', 'pg', 'autocannon'].map((c) => b.cpu[c].toFixed(0)).join(' / ')} | ${met} |`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}
