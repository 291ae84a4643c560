import type { QueryRunner } from 'typeorm';
import { SearchFrozen1764170100000 } from '../../migrations/1764170100000-SearchFrozen';
import { useSchemaBefore } from '../helpers/migrations';

/** The migration that drops the search's join keys and the tag table: everything before it is the old schema. */
const SEARCH_FROZEN = 1764170100000;

/**
 * Search and the tags filter without their trigger-kept tables, on a database of its own held at the schema
 * before: the tables, their triggers and functions go, the patients' writes keep working, and going back
 * fills the tables in again from the patients.
 */
describe('Migration freezing patient search', () => {
  const schema = useSchemaBefore(SEARCH_FROZEN, 'search_frozen');

  it('drops the join keys and the tag table with their triggers, and its down fills them in again', async () => {
    const { db } = schema;
    const tenants = (
      await db.query<{ id: string }>(
        `INSERT INTO tenants (id, name, created_at) SELECT gen_random_uuid(), 'Clinic ' || n, now() FROM generate_series(1, 2) n RETURNING id`,
      )
    ).rows.map((r) => r.id);
    await db.query(
      `INSERT INTO patients (id, tenant_id, mode, joining_code, email, phone, first_name, last_name, patient_type, patient_status,
          tags, created_at, updated_at)
       SELECT gen_random_uuid(), ($1::uuid[])[1 + n % 2], CASE WHEN n % 3 = 0 THEN 'test' ELSE 'live' END,
          translate(lpad(n::text, 8, '0'), '0123456789', 'QXZVJKWYPU'),
          CASE WHEN n % 4 = 0 THEN NULL ELSE 'p' || n || '@example.com' END, CASE WHEN n % 5 = 0 THEN '+1415555' || lpad(n::text, 4, '0') END,
          (ARRAY['Gus', 'Mary Ann', 'Jo', 'Angus'])[1 + n % 4], (ARRAY['White', 'Smith-Lee', 'Li', 'Okafor'])[1 + n / 4 % 4],
          'patient', 'active', ARRAY['cohort-' || n % 3] || CASE WHEN n % 7 = 0 THEN ARRAY['vip'] ELSE '{}' END,
          now() - n * interval '1 minute', now()
         FROM generate_series(1, 400) AS n`,
      [tenants],
    );
    await schema.migrate();

    const relations = async (): Promise<string[]> =>
      (
        await db.query<{ name: string }>(
          `SELECT relname AS name FROM pg_class WHERE relname IN ('patient_search_keys', 'patient_tags', 'patient_tag_counts', 'IDX_PATIENTS_TAGS')
            ORDER BY 1`,
        )
      ).rows.map((r) => r.name);
    const functions = async (): Promise<string[]> =>
      (await db.query<{ name: string }>(`SELECT proname AS name FROM pg_proc WHERE proname LIKE 'patient\\_%' ORDER BY 1`)).rows.map(
        (r) => r.name,
      );
    const triggers = async (): Promise<string[]> =>
      (
        await db.query<{ name: string }>(
          `SELECT tgname AS name FROM pg_trigger WHERE tgrelid = 'patients'::regclass AND NOT tgisinternal ORDER BY 1`,
        )
      ).rows.map((r) => r.name);
    const searchIndex = async (): Promise<string> =>
      (await db.query<{ def: string }>(`SELECT pg_get_indexdef('"IDX_PATIENTS_SEARCH"'::regclass) AS def`)).rows[0].def;
    // The tag counts stay exact: the one table still kept by triggers.
    const countsDrift = async (): Promise<number> =>
      Number(
        (
          await db.query<{ n: string }>(
            `WITH want AS (SELECT p.tenant_id, p.mode, t, count(*) FROM patients p, unnest(p.tags) t GROUP BY 1, 2, 3),
                  have AS (SELECT tenant_id, mode, tag, sum(count) FROM patient_tag_counts GROUP BY 1, 2, 3 HAVING sum(count) > 0)
             SELECT count(*) AS n FROM ((SELECT * FROM want EXCEPT SELECT * FROM have) UNION ALL (SELECT * FROM have EXCEPT SELECT * FROM want)) d`,
          )
        ).rows[0].n,
      );

    expect(await relations()).toEqual(['IDX_PATIENTS_TAGS', 'patient_tag_counts']);
    expect(await functions()).toEqual(['patient_tag_counts_apply']);
    expect(await triggers()).toEqual(['patient_tag_counts_delete', 'patient_tag_counts_insert', 'patient_tag_counts_update']);
    expect(await searchIndex()).toMatch(/USING gin \(search_text gin_trgm_ops\)$/);
    // Writes of every kind still work without the dropped triggers.
    await db.query(
      `UPDATE patients SET last_name = 'Whitehead', tags = tags || ARRAY['moved'] WHERE last_name = 'White' AND mode = 'live'`,
    );
    await db.query(`DELETE FROM patients WHERE first_name = 'Angus' AND mode = 'test'`);
    expect(await countsDrift()).toBe(0);

    // Down: each table is back, filled in from the patients as they are now, and its triggers keep it.
    const runner = {
      query: async (sql: string, params?: unknown[]): Promise<unknown[]> => (await db.query<Record<string, unknown>>(sql, params)).rows,
    } as unknown as QueryRunner;
    await new SearchFrozen1764170100000().down(runner);
    expect(await relations()).toEqual(['patient_search_keys', 'patient_tag_counts', 'patient_tags']);
    expect(await searchIndex()).toMatch(/translate\(search_text/);
    await db.query(
      `UPDATE patients SET first_name = 'Ozzy', tags = ARRAY['late'] WHERE id IN (SELECT id FROM patients ORDER BY created_at LIMIT 7)`,
    );
    const keysDrift = await db.query<{ n: string }>(
      `WITH want AS (SELECT p.tenant_id, p.mode, k, p.created_at, p.id FROM patients p, unnest(patient_search_join_keys(p.search_text)) k),
            have AS (SELECT tenant_id, mode, key, created_at, patient_id FROM patient_search_keys)
       SELECT count(*) AS n FROM ((SELECT * FROM want EXCEPT SELECT * FROM have) UNION ALL (SELECT * FROM have EXCEPT SELECT * FROM want)) d`,
    );
    expect(keysDrift.rows[0].n).toBe('0');
    const tagsDrift = await db.query<{ n: string }>(
      `WITH want AS (SELECT p.tenant_id, p.mode, t, p.created_at, p.id FROM patients p, unnest(p.tags) t),
            have AS (SELECT tenant_id, mode, tag, created_at, patient_id FROM patient_tags)
       SELECT count(*) AS n FROM ((SELECT * FROM want EXCEPT SELECT * FROM have) UNION ALL (SELECT * FROM have EXCEPT SELECT * FROM want)) d`,
    );
    expect(tagsDrift.rows[0].n).toBe('0');
    expect(Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM patient_tags`)).rows[0].n)).toBeGreaterThan(400);

    // And up again.
    await new SearchFrozen1764170100000().up(runner);
    expect(await relations()).toEqual(['IDX_PATIENTS_TAGS', 'patient_tag_counts']);
    expect(await countsDrift()).toBe(0);
  });
});
