import { Client, type QueryConfig } from 'pg';
import { runMigrations } from '../../src/database/database-options';
import type { AuditLogDto } from '../../src/modules/audit/dto/audit-entry.dto';
import type { PatientListDto } from '../../src/modules/patients/dto/patient.dto';
import type { AppointmentListDto } from '../../src/modules/scheduling/dto/appointment.dto';

import { SEARCH_JOINERS, walksJoinKey } from '../../src/modules/patients/search-windows';
import { call } from '../helpers/app';
import { NO_RATE_LIMITS, PATIENTS } from '../helpers/patients';
import { useApp } from '../helpers/use-app';

/** A node of EXPLAIN (FORMAT JSON)'s plan tree. */
interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  /** With ANALYZE: 0 for a node the run never started. */
  'Actual Loops'?: number;
  /** With ANALYZE: the rows the node answered, per loop. */
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

/**
 * The exact-match filters of GET /patients, and appointments by status, keep their index when PostgreSQL
 * plans the statement without its values (a generic plan: what a prepared statement gets after five runs). The statements are the ones the
 * route really sends (captured from the driver), explained on a database of 30,000 patients and 20,000
 * appointments in one tenant, analysed, so that the planner weighs its choices as it would on a large practice.
 */
describe('Query plans: filters use their index under a generic plan', () => {
  const database = `${process.env.TEST_DATABASE_NAME}_plans`;
  const admin = () => new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL });
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${database}`;
  let db: Client;
  const sent: QueryConfig[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back on the prototype and applied with the client as `this`
  const originalQuery = Client.prototype.query;

  beforeAll(async () => {
    const c = admin();
    await c.connect();
    await c.query(`CREATE DATABASE ${database}`);
    await c.end();
    await runMigrations(url.toString());
  });
  // Its own database and Redis prefix, no workers: nothing of the other suites' runs reaches it.
  const suite = useApp({
    ...NO_RATE_LIMITS,
    DATABASE_URL: url.toString(),
    REDIS_PREFIX: `${process.env.REDIS_PREFIX}:plans`,
    WORKERS: 'off',
  });
  suite.onClose(async () => {
    jest.restoreAllMocks();
    await db?.end();
  });
  afterAll(async () => {
    const c = admin();
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await c.end();
  });

  beforeAll(async () => {
    const tenant = suite.tenant;
    db = new Client({ connectionString: url.toString() });
    await db.connect();
    // 30,000 patients of the tenant's live mode (emails and externalIds unique), and a few in its test mode.
    await db.query(
      `INSERT INTO patients (id, tenant_id, mode, external_id, joining_code, email, phone, first_name, last_name,
          patient_type, patient_status, tags, created_at, updated_at)
       SELECT gen_random_uuid(), $1, CASE WHEN i % 100 = 0 THEN 'test' ELSE 'live' END, 'crm-' || i,
          translate(lpad(i::text, 8, '0'), '0123456789', 'QXZVJKWYPU'), 'Person.' || i || '@Example.com', '+1415555' || lpad((i % 10000)::text, 4, '0'),
          'Person', 'Number' || (i % 500), 'patient', 'active', ARRAY['cohort-' || (i % 20)],
          now() - i * interval '1 minute', now() - i * interval '1 minute'
         FROM generate_series(1, 30000) AS g(i)`,
      [tenant.id],
    );
    // 20,000 appointments of one provider, the last 1,000 scheduled after years of completed ones.
    const provider = await db.query<{ id: string }>(
      `INSERT INTO providers (id, tenant_id, mode, name, timezone, working_hours, is_active, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'live', 'Dr. Plans', 'UTC', '[]', true, now(), now()) RETURNING id`,
      [tenant.id],
    );
    await db.query(
      `INSERT INTO appointments (id, tenant_id, mode, patient_id, provider_id, starts_at, ends_at, duration, status, created_at, updated_at, manage_id)
       SELECT gen_random_uuid(), p.tenant_id, 'live', p.id, $2, t.at, t.at + interval '15 minutes', 15,
              CASE WHEN p.n > 19000 THEN 'scheduled' ELSE 'completed' END, now(), now(), 'plans' || lpad(p.n::text, 11, '0')
         FROM (SELECT id, tenant_id, row_number() OVER (ORDER BY id) AS n FROM patients WHERE tenant_id = $1 AND mode = 'live' LIMIT 20000) p
        CROSS JOIN LATERAL (SELECT now() - interval '400 days' + p.n * interval '20 minutes' AS at) t`,
      [tenant.id, provider.rows[0].id],
    );
    // 40,000 audit entries of the last hours, by six keys (a practice has a handful): one entry in 1,000 by the
    // live key and one in 1,000 a patient.update, so each filter's page sits behind thousands of other entries.
    const key = await db.query<{ id: string }>(`SELECT id FROM api_keys WHERE tenant_id = $1 AND mode = 'live' LIMIT 1`, [tenant.id]);
    await db.query(
      `INSERT INTO audit_log (tenant_id, mode, api_key_id, at, id, action, resource_type, resource_id, status, request_id)
       SELECT $1, 'live', CASE WHEN i % 1000 = 0 THEN $2::uuid ELSE ('00000000-0000-4000-8000-00000000000' || (i % 5))::uuid END, $3::timestamptz - i * interval '1 second',
              gen_random_uuid(), CASE WHEN i % 1000 = 1 THEN 'patient.update' ELSE 'patient.read' END, 'patient', NULL, 200, 'plans-' || i
         FROM generate_series(1, 40000) AS g(i)`,
      [tenant.id, key.rows[0].id, new Date()],
    );
    await db.query('ANALYZE patients');
    await db.query('ANALYZE appointments');
    await db.query('ANALYZE audit_log');
    // Every statement the app sends, as the driver gets it: a config object (the raw statements) or text and
    // values (TypeORM's).
    jest.spyOn(Client.prototype, 'query').mockImplementation(function (this: Client, ...args: unknown[]) {
      const [first, second] = args;
      if (typeof first === 'string') sent.push({ text: first, values: Array.isArray(second) ? second : [] });
      else if (typeof first === 'object' && first && 'text' in first) sent.push(first as QueryConfig);
      return (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
    });
  });

  /** The list statement (on `table`) that GET `path` sends, and the page it answered. */
  async function statementOf<Page = PatientListDto>(
    query: string,
    path = PATIENTS,
    table = /FROM patients\b/,
  ): Promise<{ config: QueryConfig; body: Page }> {
    sent.length = 0;
    const res = await suite.api(suite.tenant.liveKey).get<Page>(`${path}?${query}`);
    expect(res.status).toBe(200);
    const lists = sent.filter((c) => table.test(c.text) && /ORDER BY/.test(c.text));
    expect(lists).toHaveLength(1);
    return { config: lists[0], body: res.body };
  }

  /**
   * The generic plan of a statement (PREPARE, then EXPLAIN EXECUTE with its values, plan_cache_mode forcing it);
   * `analyze`: also run, with each node's actual rows.
   */
  async function genericPlan(config: QueryConfig, analyze = false): Promise<PlanNode[]> {
    const literal = (v: unknown): string => {
      if (v === null) return 'NULL';
      if (typeof v === 'number') return String(v);
      if (v instanceof Date) return db.escapeLiteral(v.toISOString());
      return db.escapeLiteral(typeof v === 'string' ? v : JSON.stringify(v));
    };
    await db.query(`SET plan_cache_mode = force_generic_plan`);
    await db.query(`PREPARE probe AS ${config.text}`);
    try {
      const { rows } = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
        `EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) EXECUTE probe(${(config.values ?? []).map(literal).join(', ')})`,
      );
      return nodes(rows[0]['QUERY PLAN'][0].Plan);
    } finally {
      await db.query('DEALLOCATE probe');
      await db.query('RESET plan_cache_mode');
    }
  }

  /** The plan PostgreSQL picks with the values in view (what an unnamed statement gets). */
  async function customPlan(config: QueryConfig): Promise<PlanNode[]> {
    const { rows } = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${config.text}`, config.values);
    return nodes(rows[0]['QUERY PLAN'][0].Plan);
  }

  it('email: an index scan of IDX_PATIENTS_TENANT_MODE_EMAIL on the address, in page order (no sort of the matches)', async () => {
    const { config, body } = await statementOf(`email=${encodeURIComponent('PERSON.20001@example.COM')}`);
    expect(body.patients.map((p) => p.externalId)).toEqual(['crm-20001']);
    const plan = await genericPlan(config);
    const scan = plan.find((n) => n['Index Name'] === 'IDX_PATIENTS_TENANT_MODE_EMAIL');
    expect(scan?.['Node Type']).toBe('Index Scan');
    // Generic: the address is a parameter in the index condition, not a value the planner saw.
    expect(scan?.['Index Cond']).toMatch(/lower\(\(email\)::text\) = lower\(\$\d+\)/);
    // Without a sort, the rows read are bounded by the page, not by how many matches the planner guesses.
    expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
    expect(plan.map((n) => n['Node Type'])).not.toContain('Seq Scan');
  });

  it('externalId: an index scan of UQ_PATIENTS_TENANT_MODE_EXTERNAL_ID on the id', async () => {
    const { config, body } = await statementOf('externalId=crm-12345');
    expect(body.patients.map((p) => p.externalId)).toEqual(['crm-12345']);
    const plan = await genericPlan(config);
    const scan = plan.find((n) => n['Index Name'] === 'UQ_PATIENTS_TENANT_MODE_EXTERNAL_ID');
    expect(scan?.['Node Type']).toMatch(/^Index (Only )?Scan$/);
    expect(scan?.['Index Cond']).toMatch(/external_id\)::text = \$\d+/);
    expect(plan.map((n) => n['Node Type'])).not.toContain('Seq Scan');
  });

  it('appointments by status: an index scan of IDX_APPOINTMENTS_TENANT_MODE_STATUS_STARTS, in list order', async () => {
    const { config, body } = await statementOf<AppointmentListDto>(
      'status=scheduled&limit=20',
      '/api/v1/scheduling/appointments',
      /FROM appointments\b/,
    );
    expect(body.appointments).toHaveLength(20);
    expect(body.appointments.every((a) => a.status === 'scheduled')).toBe(true);
    const plan = await genericPlan(config);
    const scan = plan.find((n) => n['Index Name'] === 'IDX_APPOINTMENTS_TENANT_MODE_STATUS_STARTS');
    expect(scan?.['Node Type']).toBe('Index Scan');
    expect(scan?.['Index Cond']).toMatch(/status\)::text = \$\d+/);
    // Not a walk of every appointment since the first, filtering, nor a sort of all those of the status.
    expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
  });

  it('a manage link: one probe of UQ_APPOINTMENTS_MANAGE_ID finds the appointment, in any tenant and mode', async () => {
    sent.length = 0;
    const res = await call<{ id: string }>(suite.app, 'GET', '/api/v1/public/appointments/plans00000019500');
    expect(res.status).toBe(200);
    const lookups = sent.filter((c) => /\bmanage_id = \$1/.test(c.text));
    expect(lookups).toHaveLength(1);
    for (const plan of [await genericPlan(lookups[0]), await customPlan(lookups[0])]) {
      expect(plan.map((n) => [n['Node Type'], n['Index Name']])).toEqual([['Index Scan', 'UQ_APPOINTMENTS_MANAGE_ID']]);
    }
  });

  it.each([
    ['action=patient.update', 'IDX_AUDIT_LOG_TENANT_MODE_ACTION', /action\)::text = \$\d+/],
    ['apiKeyId=', 'IDX_AUDIT_LOG_TENANT_MODE_KEY', /api_key_id = \$\d+/],
  ])('audit log %s: a backward scan of %s, in page order', async (filter, index, condition) => {
    const key = await db.query<{ id: string }>(`SELECT id FROM api_keys WHERE tenant_id = $1 AND mode = 'live' LIMIT 1`, [suite.tenant.id]);
    const query = filter === 'apiKeyId=' ? `apiKeyId=${key.rows[0].id}` : filter;
    const { config, body } = await statementOf<AuditLogDto>(`${query}&limit=20`, '/api/v1/settings/audit-log', /FROM "audit_log"/);
    expect(body.entries).toHaveLength(20);
    const plan = await genericPlan(config);
    // The partitions' own indexes, which the partitioned table's index is made of.
    const parts = await db.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = $1::regclass`,
      [`"${index}"`],
    );
    const names = new Set(parts.rows.map((r) => r.name));
    const scans = plan.filter((n) => names.has(n['Index Name'] ?? ''));
    expect(scans.length).toBeGreaterThan(0);
    for (const scan of scans) expect(scan['Index Cond']).toMatch(condition);
    // Each month's index read in order and merged; never every entry filtered and sorted.
    expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
    expect(plan.map((n) => n['Node Type'])).not.toContain('Seq Scan');
  });

  it("tags: each tag's entries of patient_tags read in page order, never every holder sorted", async () => {
    const { config, body } = await statementOf('tags=cohort-3,cohort-7&limit=50');
    // Patient i carries cohort-(i % 20) and was created i minutes ago; i % 100 = 0 is in test mode.
    const expected = Array.from({ length: 1000 }, (_, k) => k + 1)
      .filter((i) => (i % 20 === 3 || i % 20 === 7) && i % 100 !== 0)
      .slice(0, 50)
      .map((i) => `crm-${i}`);
    expect(body.patients.map((p) => p.externalId)).toEqual(expected);
    for (const plan of [await genericPlan(config), await customPlan(config)]) {
      const walks = plan.filter((n) => n['Index Name'] === 'patient_tags_pkey');
      expect(walks).toHaveLength(2);
      for (const walk of walks) expect(walk['Node Type']).toMatch(/^Index (Only )?Scan$/);
      expect(plan.map((n) => n['Node Type'])).not.toContain('Seq Scan');
      expect(plan.map((n) => n['Node Type'])).not.toContain('Bitmap Heap Scan');
    }
  });

  /**
   * GET /patients?`query`: the statements it sent (the first step, then the index's fallback when the walk
   * fell short), each executed again under EXPLAIN ANALYZE.
   */
  async function searched(
    query: string,
    key?: string,
  ): Promise<{ configs: QueryConfig[]; executed: PlanNode[]; ids: string[]; next: string | null }> {
    sent.length = 0;
    const res = await suite.api(key ?? suite.tenant.liveKey).get<PatientListDto>(`${PATIENTS}?${query}`);
    expect(res.status).toBe(200);
    const configs = sent.filter((c) => /FROM patients\b/.test(c.text) && /ORDER BY/.test(c.text));
    expect(configs.length).toBeGreaterThanOrEqual(1);
    expect(configs.length).toBeLessThanOrEqual(2);
    // The fallback is planned on each run with its term: a generic plan cannot tell a rare term from a common one.
    if (configs.length === 2) expect(configs[1].name).toBeUndefined();
    const executed: PlanNode[] = [];
    for (const config of configs) {
      const { rows } = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) ${config.text}`,
        config.values,
      );
      executed.push(...nodes(rows[0]['QUERY PLAN'][0].Plan).filter((n) => (n['Actual Loops'] ?? 0) > 0));
    }
    return { configs, executed, ids: res.body.patients.map((p) => p.externalId ?? ''), next: res.body.nextCursor };
  }
  const scans = (plan: PlanNode[]): string[] => [...new Set(plan.filter((n) => n['Index Name']).map((n) => n['Index Name']!))].sort();
  const types = (plan: PlanNode[]): string[] => plan.map((n) => n['Node Type']);

  it('search: a common term walks the page order in one statement, a rare one then asks the trigram index, a small practice is read whole', async () => {
    // number7 and number70–79 of 500 surnames: 2.2 % of patients, about 44 in the newest 2,000, short of a page.
    const common = await searched('search=number7&limit=50');
    const live = (i: number): boolean => i % 100 !== 0;
    const commonIds = Array.from({ length: 3000 }, (_, k) => k + 1)
      .filter((i) => live(i) && (i % 500 === 7 || Math.floor((i % 500) / 10) === 7))
      .slice(0, 50)
      .map((i) => `crm-${i}`);
    expect(common.ids).toEqual(commonIds);
    // One statement: the sample and the walk read the page-order index alone; the page's rows are then fetched by id.
    expect(common.configs).toHaveLength(1);
    expect(scans(common.executed)).toEqual(['IDX_PATIENTS_TENANT_MODE_CREATED', 'patients_pkey']);
    expect(types(common.executed)).toContain('Index Only Scan');
    expect(types(common.executed)).not.toContain('Bitmap Heap Scan');
    // Unnamed, as every statement the app sends (named prepared statements break PgBouncer's transaction
    // mode); its generic plan would still be the same walk for any term.
    expect(common.configs[0].name).toBeUndefined();
    const generic = await genericPlan(common.configs[0], true);
    expect(scans(generic)).toEqual(['IDX_PATIENTS_TENANT_MODE_CREATED', 'patient_search_keys_pkey', 'patients_pkey']);
    expect(types(generic)).not.toContain('Seq Scan');
    // A term without a join key never starts the key walk.
    expect(generic.filter((n) => n['Index Name'] === 'patient_search_keys_pkey' && n['Actual Loops'])).toEqual([]);
    // Whatever it sorts is the page or the walk's ids, at most a page: never the matches found along the way.
    const sorts = generic.filter((n) => n['Node Type'] === 'Sort' && (n['Actual Loops'] ?? 0) > 0);
    expect(sorts.length).toBeGreaterThan(0);
    for (const sort of sorts) expect(sort['Actual Rows']).toBeLessThanOrEqual(51);
    // One patient's email: nothing in the sample, so the fallback asks the index, and sorts its matches.
    const rare = await searched(`search=${encodeURIComponent('person.29001@')}`);
    expect(rare.ids).toEqual(['crm-29001']);
    expect(rare.configs).toHaveLength(2);
    expect(rare.configs[0].text).toBe(common.configs[0].text);
    expect(scans(rare.executed)).toContain('IDX_PATIENTS_SEARCH');
    expect(types(rare.executed)).not.toContain('Seq Scan');
    // The index is asked for the term's parts around its join and its last four digits, not its words.
    const asked = rare.executed.filter((n) => n['Index Name'] === 'IDX_PATIENTS_SEARCH').map((n) => n['Index Cond']);
    expect(asked).toEqual([expect.stringMatching(/translate\(search_text, .*~~ '%son290%'.*~~ '%9001%'/)]);
    // The test mode's 300 patients fit in the sample: the walk read them all, so the index is not asked.
    const small = await searched(`search=${encodeURIComponent('person.29000@')}`, suite.tenant.testKey);
    expect(small.ids).toEqual(['crm-29000']);
    expect(small.configs).toHaveLength(1);
    expect(scans(small.executed)).not.toContain('IDX_PATIENTS_SEARCH');
    // Nothing matches in a small practice: an empty page, not a row of nulls.
    const none = await searched(`search=${encodeURIComponent('no such person')}`, suite.tenant.testKey);
    expect(none.ids).toEqual([]);
    expect(none.configs).toHaveLength(1);
  });

  it('search with another filter: the first step is planned on each run (the filter could make another index look better)', async () => {
    const { configs, ids } = await searched('search=number7&patientType=patient&limit=5');
    expect(ids).toHaveLength(5);
    expect(configs[0].name).toBeUndefined();
  });

  it("search: the index's answer is exactly the patients whose text holds the term, for terms with and without joins", async () => {
    // Patients older than the newest 2,000, so that every term below is rare there and the index answers.
    const rows: [string, string, string | null, string | null][] = [
      ['Gus', 'White', 'gus.white1987@mail.org', '+14155550199'],
      ['Gus', 'White', null, null],
      ['Angus', 'White', 'angus@white.example', null],
      ['Gus', 'Whitehead', 'g.whitehead@mail.org', null],
      ['Fergus', 'White-Lee', 'fergus_white@mail.org', null],
      ['Gus', "O'White", null, null],
      ['Mary Ann', 'Smith', 'maryann.smith2024@mail.org', null],
      ['Ann', 'Smithers', 'ann@smithers.org', null],
      ['White', 'Gus', null, '+14155552024'],
      ['Gus', 'White', 'gus%white@mail.org', null],
    ];
    await db.query(
      `INSERT INTO patients (id, tenant_id, mode, external_id, joining_code, email, phone, first_name, last_name,
          patient_type, patient_status, tags, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'live', 'joined-' || k, 'JJJJJJ' || chr(64 + k::int) || 'J', r->>2, r->>3, r->>0, r->>1,
          'patient', 'active', '{}', now() - interval '40 days' - k * interval '1 hour', now()
         FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS a(r, k)`,
      [suite.tenant.id, JSON.stringify(rows)],
    );
    // The meaning, independently of the statement: a case-insensitive substring of search_text, or for a
    // phone-like term its digits; newest first.
    const all = await db.query<{ external_id: string; search_text: string }>(
      `SELECT external_id, search_text FROM patients WHERE tenant_id = $1 AND mode = 'live' ORDER BY created_at DESC, id DESC`,
      [suite.tenant.id],
    );
    const expected = (term: string): string[] => {
      const digits = /^[\d\s()+.-]+$/.test(term) ? term.replace(/\D/g, '') : '';
      const byDigits = digits.length >= 3 && digits !== term;
      return all.rows
        .filter((r) => r.search_text.includes(term.toLowerCase()) || (byDigits && r.search_text.includes(digits)))
        .slice(0, 50)
        .map((r) => r.external_id);
    };
    const terms = [
      'gus white',
      'Gus White',
      'us whi',
      'gus whitehead',
      'white-lee',
      's white-l',
      "o'wh",
      "gus o'white",
      'mary ann smith',
      'ann smith',
      'n smith',
      'gus.white1987',
      'white1987@mail',
      '1987@mail.org',
      'gus  white',
      'gus. white',
      'gus_white',
      'fergus_white@',
      'white gus',
      'gus%white',
      '%white@',
      '(415) 555-0199',
      '555-2024',
      '2024@mail',
      'smithers.org',
    ];
    let found = 0;
    let keyed = 0;
    for (const term of terms) {
      const { executed, ids } = await searched(`search=${encodeURIComponent(term)}`);
      expect({ term, ids }).toEqual({ term, ids: expected(term) });
      // A full name's few patients are all under its join key: its walk reads the key's last entry and answers.
      // Any other term is answered by the trigram index.
      const index = walksJoinKey(term.toLowerCase()) ? 'patient_search_keys_pkey' : 'IDX_PATIENTS_SEARCH';
      expect({ term, scans: scans(executed) }).toEqual({ term, scans: expect.arrayContaining([index]) });
      if (index !== 'IDX_PATIENTS_SEARCH')
        expect({ term, asked: scans(executed).includes('IDX_PATIENTS_SEARCH') }).toEqual({ term, asked: false });
      found += ids.length;
      if (index !== 'IDX_PATIENTS_SEARCH') keyed++;
    }
    // Not an empty comparison: most terms find someone, and both ways answer some of them.
    expect(found).toBeGreaterThan(30);
    expect(keyed).toBeGreaterThanOrEqual(5);
    expect(keyed).toBeLessThan(terms.length - 5);
  });

  it('search: a full name walks its join key newest first and stops at the page, however many patients hold it', async () => {
    // Older than every patient above, newest first: 52 Zed Quartz and a Zed Quartzman (A), 2,100 others, then
    // 200 Zed Quartz (B) with 6 Ozed Quartz and 2 more Zed Quartzman among them, the last past the walk's first
    // 200 entries; all of them under the key "zedqua". And 5 Yan Plover.
    await db.query(
      `INSERT INTO patients (id, tenant_id, mode, external_id, joining_code, email, phone, first_name, last_name,
          patient_type, patient_status, tags, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'live', n.ext || '-' || k, 'Z' || n.shift || translate(lpad(k::text, 6, '0'), '0123456789', 'QXZVJKWYPU'),
          NULL, NULL, n.first, n.last, 'patient', 'active', '{}',
          now() - interval '50 days' - k * n.unit - n.shift * interval '1 second', now()
         FROM (VALUES ('zq', 'Zed', 'Quartz', 0, ARRAY[1, 52], interval '1 hour'), ('zq', 'Zed', 'Quartz', 0, ARRAY[201, 400], interval '1 hour'),
                      ('filler', 'Filler', 'Person', 4, ARRAY[6001, 8100], interval '1 minute'),
                      ('ozq', 'Ozed', 'Quartz', 1, ARRAY[210, 395], interval '1 hour'), ('zqm', 'Zed', 'Quartzman', 2, ARRAY[20, 399], interval '1 hour'),
                      ('yp', 'Yan', 'Plover', 3, ARRAY[1, 5], interval '1 hour')) AS n(ext, first, last, shift, span, unit),
              LATERAL generate_series(n.span[1], n.span[2]) AS k
        WHERE n.ext NOT IN ('ozq', 'zqm') OR (n.ext = 'ozq' AND k IN (210, 250, 290, 330, 370, 395)) OR (n.ext = 'zqm' AND k IN (20, 220, 399))`,
      [suite.tenant.id],
    );
    const holders = async (term: string): Promise<string[]> =>
      (
        await db.query<{ external_id: string }>(
          `SELECT external_id FROM patients WHERE tenant_id = $1 AND mode = 'live' AND strpos(search_text, $2) > 0 ORDER BY created_at DESC, id DESC`,
          [suite.tenant.id, term],
        )
      ).rows.map((r) => r.external_id);
    const keyWalks = (plan: PlanNode[]): PlanNode[] =>
      plan.filter((n) => n['Index Name'] === 'patient_search_keys_pkey' && n['Actual Loops']);

    const all = await holders('zed quartz');
    expect(all).toHaveLength(261);
    const first = await searched('search=zed%20quartz&limit=50');
    expect(first.ids).toEqual(all.slice(0, 50));
    // One statement; the key's entries read are a page (51 with the next page's probe), not 261.
    expect(first.configs).toHaveLength(1);
    expect(first.configs[0].name).toBeUndefined();
    expect(scans(first.executed)).not.toContain('IDX_PATIENTS_SEARCH');
    expect(keyWalks(first.executed).map((n) => n['Actual Rows'])).toEqual([51]);
    // The next page: the newest 2,000 patients past the cursor hold the term 3 times (A's last), so it walks
    // the key again, from the cursor.
    const second = await searched(`search=zed%20quartz&limit=50&cursor=${first.next}`);
    expect(second.ids).toEqual(all.slice(50, 100));
    expect(second.configs).toHaveLength(1);
    expect(keyWalks(second.executed).map((n) => n['Actual Rows'])).toEqual([51]);
    // Its generic plan walks the key the same way.
    const generic = await genericPlan(first.configs[0], true);
    expect(types(generic)).not.toContain('Seq Scan');
    expect(keyWalks(generic).map((n) => [n['Node Type'], n['Actual Rows']])).toEqual([['Index Only Scan', 51]]);

    // Rarer than its key: the walk reads 200 entries, finds two, and the index answers all three.
    const rare = await searched('search=zed%20quartzman');
    expect(rare.ids).toEqual(await holders('zed quartzman'));
    expect(rare.ids).toHaveLength(3);
    expect(rare.configs).toHaveLength(2);
    expect(keyWalks(rare.executed).map((n) => n['Actual Rows'])).toEqual([200, 200]);
    expect(scans(rare.executed)).toContain('IDX_PATIENTS_SEARCH');
    // A key of five entries is read to its end, and that answers without the index.
    const few = await searched('search=yan%20plover');
    expect(few.ids).toEqual(await holders('yan plover'));
    expect(few.ids).toHaveLength(5);
    expect(few.configs).toHaveLength(1);

    // The keys follow the patient: renamed through the API, deleted by SQL.
    const idOf = async (ext: string): Promise<string> =>
      (await db.query<{ id: string }>(`SELECT id FROM patients WHERE external_id = $1`, [ext])).rows[0].id;
    const keysOf = async (id: string): Promise<string[]> =>
      (await db.query<{ key: string }>(`SELECT key FROM patient_search_keys WHERE patient_id = $1 ORDER BY key`, [id])).rows.map(
        (r) => r.key,
      );
    const renamed = await idOf('zq-1');
    expect(await keysOf(renamed)).toContain('zedqua');
    expect((await suite.api(suite.tenant.liveKey).put(`${PATIENTS}/${renamed}`, { lastName: 'Plover' })).status).toBe(200);
    expect(await keysOf(renamed)).toEqual(expect.arrayContaining(['zedplo']));
    expect(await keysOf(renamed)).not.toContain('zedqua');
    const deleted = await idOf('zq-2');
    await db.query(`DELETE FROM patients WHERE id = $1`, [deleted]);
    expect(await keysOf(deleted)).toEqual([]);
    expect((await searched('search=zed%20quartz&limit=50')).ids).toEqual((await holders('zed quartz')).slice(0, 50));
    expect((await searched('search=zed%20quartz&limit=50')).ids.slice(0, 1)).toEqual(['zq-3']);
    expect((await searched('search=zed%20plover')).ids).toEqual(['zq-1']);
    // And the table holds exactly every patient's keys, no more.
    const drift = await db.query<{ n: string }>(
      `WITH want AS (SELECT p.tenant_id, p.mode, k, p.created_at, p.id FROM patients p, unnest(patient_search_join_keys(p.search_text)) k),
            have AS (SELECT tenant_id, mode, key, created_at, patient_id FROM patient_search_keys)
       SELECT count(*) AS n FROM ((SELECT * FROM want EXCEPT SELECT * FROM have) UNION ALL (SELECT * FROM have EXCEPT SELECT * FROM want)) d`,
    );
    expect(drift.rows[0].n).toBe('0');
  });

  it("join keys: a text that holds a term holds each of the term's keys, and a term that walks its key has one", async () => {
    // A fixed-seed generator (mulberry32): texts of short words (letters and a digit) joined by runs of joiners,
    // spaces most, and terms cut from them.
    let seed = 11;
    const next = (n: number): number => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const pick = (chars: string, length: number): string => Array.from({ length }, () => chars[next(chars.length)]).join('');
    const texts: string[] = [];
    const terms: string[] = [];
    for (let k = 0; k < 4000; k++) {
      const words = Array.from({ length: 1 + next(5) }, () => pick('aabbcc1', 1 + next(7)));
      const text = words.reduce((t, word) => `${t}${next(2) ? ' ' : pick(`  ${SEARCH_JOINERS}`, 1 + next(2))}${word}`);
      const from = next(text.length);
      texts.push(text);
      terms.push(text.slice(from, from + 1 + next(text.length - from)));
    }
    const { rows } = await db.query<{ term: string; covered: boolean; keys: number }>(
      `SELECT term, patient_search_join_keys(term) <@ patient_search_join_keys(text) AS covered, cardinality(patient_search_join_keys(term)) AS keys
         FROM unnest($1::text[], $2::text[]) AS t(text, term)`,
      [texts, terms],
    );
    expect(rows.filter((r) => !r.covered)).toEqual([]);
    expect(rows.filter((r) => walksJoinKey(r.term) && r.keys === 0)).toEqual([]);
    // Not vacuous: many terms have keys, and many of those walk them.
    expect(rows.filter((r) => r.keys > 0).length).toBeGreaterThan(100);
    expect(rows.filter((r) => walksJoinKey(r.term)).length).toBeGreaterThan(40);
  });

  it('the unfiltered page: a backward scan of IDX_PATIENTS_TENANT_MODE_CREATED, first page and the next', async () => {
    const first = await statementOf('limit=50');
    for (const config of [first.config, (await statementOf(`limit=50&cursor=${first.body.nextCursor}`)).config]) {
      const plan = await genericPlan(config);
      const scan = plan.find((n) => n['Index Name'] === 'IDX_PATIENTS_TENANT_MODE_CREATED');
      expect(scan?.['Node Type']).toBe('Index Scan');
      expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
    }
  });
});
