import { Client, type QueryConfig } from 'pg';
import { runMigrations } from '../../src/database/database-options';
import type { AuditLogDto } from '../../src/modules/audit/dto/audit-entry.dto';
import type { PatientListDto } from '../../src/modules/patients/dto/patient.dto';
import type { AppointmentListDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
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

  it('tags: the newest holders of any of the tags, from an index, never a scan of the table', async () => {
    const { config, body } = await statementOf('tags=cohort-3,cohort-7&limit=50');
    // Patient i carries cohort-(i % 20) and was created i minutes ago; i % 100 = 0 is in test mode.
    const expected = Array.from({ length: 1000 }, (_, k) => k + 1)
      .filter((i) => (i % 20 === 3 || i % 20 === 7) && i % 100 !== 0)
      .slice(0, 50)
      .map((i) => `crm-${i}`);
    expect(body.patients.map((p) => p.externalId)).toEqual(expected);
    // A tenth of the patients hold one of them: the page-order walk finds the page within a few hundred.
    const plan = await customPlan(config);
    expect(plan.find((n) => n['Index Name'] === 'IDX_PATIENTS_TENANT_MODE_CREATED')?.['Node Type']).toBe('Index Scan');
    expect(plan.map((n) => n['Node Type'])).not.toContain('Seq Scan');
    expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
    // A tag of a few patients: its holders from IDX_PATIENTS_TAGS, sorted.
    await db.query(
      `UPDATE patients SET tags = tags || ARRAY['plans-rare'] WHERE tenant_id = $1 AND external_id IN ('crm-7', 'crm-20007')`,
      [suite.tenant.id],
    );
    await db.query('ANALYZE patients');
    const rare = await statementOf('tags=plans-rare,plans-none');
    expect(rare.body.patients.map((p) => p.externalId)).toEqual(['crm-7', 'crm-20007']);
    const rarePlan = await customPlan(rare.config);
    expect(rarePlan.map((n) => n['Index Name'])).toContain('IDX_PATIENTS_TAGS');
    expect(rarePlan.map((n) => n['Node Type'])).not.toContain('Seq Scan');
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
    // Planned on each run, never a named prepared statement.
    expect(common.configs[0].name).toBeUndefined();
    // Whatever it sorts is the page or the walk's ids, at most a page: never the matches found along the way.
    const sorts = common.executed.filter((n) => n['Node Type'] === 'Sort');
    expect(sorts.length).toBeGreaterThan(0);
    for (const sort of sorts) expect(sort['Actual Rows']).toBeLessThanOrEqual(51);
    // One patient's email: nothing in the sample, so the fallback asks the index, and sorts its matches.
    const rare = await searched(`search=${encodeURIComponent('person.29001@')}`);
    expect(rare.ids).toEqual(['crm-29001']);
    expect(rare.configs).toHaveLength(2);
    expect(rare.configs[0].text).toBe(common.configs[0].text);
    expect(scans(rare.executed)).toContain('IDX_PATIENTS_SEARCH');
    expect(types(rare.executed)).not.toContain('Seq Scan');
    // The index is asked for the whole term, lowered as search_text is.
    const asked = rare.executed.filter((n) => n['Index Name'] === 'IDX_PATIENTS_SEARCH').map((n) => n['Index Cond']);
    expect(asked).toEqual([expect.stringMatching(/search_text ~~ '%person\.29001@%'/)]);
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

  describe('search: the answer is exactly the patients whose text holds the term, newest first', () => {
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
      ['Amir', 'Larsen', 'amir.larsen636847@mail.org', '+14155551234'],
      ['Noor', 'Nagy', 'noor.nagy71108@mail.org', null],
      ['O', 'Kim', 'o.kim2024@mail.org', null],
      ['Jo Ann', 'Smith', null, null],
      ['Kira', 'Li', 'kira@li.example', null],
      ['Mateo', 'Haddad-Lee', null, null],
    ];
    let all: { external_id: string; search_text: string }[] = [];
    /**
     * The meaning, independently of the statement: a case-insensitive substring of search_text (the term
     * trimmed, as the API does), or for a phone-like term its digits; newest first.
     */
    const expected = (raw: string): string[] => {
      const term = raw.trim();
      const digits = /^[\d\s()+.-]+$/.test(term) ? term.replace(/\D/g, '') : '';
      const byDigits = digits.length >= 3 && digits !== term;
      return all
        .filter((r) => r.search_text.includes(term.toLowerCase()) || (byDigits && r.search_text.includes(digits)))
        .slice(0, 50)
        .map((r) => r.external_id);
    };
    const reload = async (): Promise<void> => {
      all = (
        await db.query<{ external_id: string; search_text: string }>(
          `SELECT external_id, search_text FROM patients WHERE tenant_id = $1 AND mode = 'live' ORDER BY created_at DESC, id DESC`,
          [suite.tenant.id],
        )
      ).rows;
    };
    beforeAll(async () => {
      await db.query(
        `INSERT INTO patients (id, tenant_id, mode, external_id, joining_code, email, phone, first_name, last_name,
            patient_type, patient_status, tags, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'live', 'joined-' || k, 'JJJJJJ' || chr(64 + k::int) || 'J', r->>2, r->>3, r->>0, r->>1,
            'patient', 'active', '{}', now() - interval '40 days' - k * interval '1 hour', now()
           FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS a(r, k)`,
        [suite.tenant.id, JSON.stringify(rows)],
      );
      await reload();
    });

    let found = 0;
    it.each([
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
    ])('%j: from the trigram index', async (term) => {
      const { executed, ids } = await searched(`search=${encodeURIComponent(term)}`);
      expect(ids).toEqual(expected(term));
      // Rare among the newest patients, so the trigram index answers.
      expect(scans(executed)).toContain('IDX_PATIENTS_SEARCH');
      found += ids.length;
    });

    // Terms of every shape of joins, short parts and digits: once the cases of the search's own rules of word
    // joins (which parts of a term the index was asked for, and which terms walked a join key).
    it.each([
      'gus white',
      'jo smith',
      'mary ann smith',
      'gus  white',
      'amir.larsen636847',
      'noor.nagy71108@',
      'o.kim2024',
      '5551234',
      'garcia',
      ' gus.',
      'a b',
      '100%_x',
      'gus. white',
      ' gus white ',
      'angus whi',
      'jo ann smith',
      'kira li',
      'mateo haddad-lee',
      'gus.white1987',
      'gus white 1987',
      'ab1 cde',
    ])('%j', async (term) => {
      const { ids } = await searched(`search=${encodeURIComponent(term)}`);
      expect(ids).toEqual(expected(term));
      found += ids.length;
    });

    it('not an empty comparison: most terms find someone', () => {
      expect(found).toBeGreaterThan(40);
    });

    it('generated texts and terms cut from them: nothing is missed, nothing else is found', async () => {
      // A fixed-seed generator: names over a few letters and digits joined by every joining character, and
      // terms cut from their search text; patients of their own, older than every one above.
      let seed = 7;
      const next = (n: number): number => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      const pick = (chars: string, length: number): string => Array.from({ length }, () => chars[next(chars.length)]).join('');
      const joiners = " .@+-_'";
      const names = Array.from({ length: 120 }, () => [
        `Qz${pick('ab01', 1 + next(3))}${pick(joiners, 1)}${pick('ab01', 1 + next(3))}`,
        `${pick('ab01', 1 + next(4))}${pick(joiners, 1)}${pick('ab', 1 + next(3))}`,
      ]);
      await db.query(
        `INSERT INTO patients (id, tenant_id, mode, external_id, joining_code, first_name, last_name,
            patient_type, patient_status, tags, created_at, updated_at)
         SELECT gen_random_uuid(), $1, 'live', 'generated-' || k, 'G' || translate(lpad(k::text, 7, '0'), '0123456789', 'QXZVJKWYPU'), r->>0, r->>1,
            'patient', 'active', '{}', now() - interval '60 days' - k * interval '1 minute', now()
           FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS a(r, k)`,
        [suite.tenant.id, JSON.stringify(names)],
      );
      await reload();
      const texts = all.filter((r) => r.external_id.startsWith('generated-')).map((r) => r.search_text);
      let matched = 0;
      for (let k = 0; k < 80; k++) {
        const text = texts[next(texts.length)];
        const from = next(text.length - 2);
        const term = text.slice(from, from + 3 + next(8)).trim();
        if (term.length < 3) continue;
        const { ids } = await searched(`search=${encodeURIComponent(term)}`);
        expect({ term, ids }).toEqual({ term, ids: expected(term) });
        matched += ids.length;
      }
      expect(matched).toBeGreaterThan(80);
    });
  });

  it('search: a full name held by hundreds of patients answers its pages newest first, and follows renames and deletes', async () => {
    // Older than every patient above, newest first: 52 Zed Quartz and a Zed Quartzman (A), 2,100 others, then
    // 200 Zed Quartz (B) with 6 Ozed Quartz and 2 more Zed Quartzman among them. And 5 Yan Plover.
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

    const all = await holders('zed quartz');
    expect(all).toHaveLength(261);
    const first = await searched('search=zed%20quartz&limit=50');
    expect(first.ids).toEqual(all.slice(0, 50));
    // Rare among the newest patients: the trigram index finds its holders and the page is the newest of them.
    expect(scans(first.executed)).toContain('IDX_PATIENTS_SEARCH');
    expect(types(first.executed)).not.toContain('Seq Scan');
    const second = await searched(`search=zed%20quartz&limit=50&cursor=${first.next}`);
    expect(second.ids).toEqual(all.slice(50, 100));

    const rare = await searched('search=zed%20quartzman');
    expect(rare.ids).toEqual(await holders('zed quartzman'));
    expect(rare.ids).toHaveLength(3);
    const few = await searched('search=yan%20plover');
    expect(few.ids).toEqual(await holders('yan plover'));
    expect(few.ids).toHaveLength(5);

    // The search follows the patient: renamed through the API, deleted by SQL.
    const idOf = async (ext: string): Promise<string> =>
      (await db.query<{ id: string }>(`SELECT id FROM patients WHERE external_id = $1`, [ext])).rows[0].id;
    const renamed = await idOf('zq-1');
    expect((await suite.api(suite.tenant.liveKey).put(`${PATIENTS}/${renamed}`, { lastName: 'Plover' })).status).toBe(200);
    await db.query(`DELETE FROM patients WHERE id = $1`, [await idOf('zq-2')]);
    expect((await searched('search=zed%20quartz&limit=50')).ids).toEqual((await holders('zed quartz')).slice(0, 50));
    expect((await searched('search=zed%20quartz&limit=50')).ids.slice(0, 1)).toEqual(['zq-3']);
    expect((await searched('search=zed%20plover')).ids).toEqual(['zq-1']);
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
