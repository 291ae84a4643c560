import { useSchemaBefore } from '../helpers/migrations';

/** The migration that adds patient_search_keys: everything before it is the old schema. */
const SEARCH_KEYS = 1764140000000;

/**
 * The search's join keys filled in for the patients a database already holds when it is migrated, on a
 * database of its own held at the schema before: every patient's keys, in each tenant and mode, no more.
 */
describe('Migration adding the join keys of patient search', () => {
  const schema = useSchemaBefore(SEARCH_KEYS, 'search_keys');

  it("fills in every existing patient's keys, and the triggers keep them from then on", async () => {
    const { db } = schema;
    // Two tenants, both modes; names of two and three words, short ones, hyphens, no email, no phone.
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
          'patient', 'active', '{}', now() - n * interval '1 minute', now()
         FROM generate_series(1, 400) AS n`,
      [tenants],
    );
    await schema.migrate();

    const drift = async (): Promise<number> =>
      Number(
        (
          await db.query<{ n: string }>(
            `WITH want AS (SELECT p.tenant_id, p.mode, k, p.created_at, p.id FROM patients p, unnest(patient_search_join_keys(p.search_text)) k),
                  have AS (SELECT tenant_id, mode, key, created_at, patient_id FROM patient_search_keys)
             SELECT count(*) AS n FROM ((SELECT * FROM want EXCEPT SELECT * FROM have) UNION ALL (SELECT * FROM have EXCEPT SELECT * FROM want)) d`,
          )
        ).rows[0].n,
      );
    expect(await drift()).toBe(0);
    // Not an empty comparison: most patients have keys, in every tenant and mode.
    const held = await db.query<{ tenant_id: string; mode: string; n: string }>(
      `SELECT tenant_id, mode, count(DISTINCT patient_id) AS n FROM patient_search_keys GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    expect(held.rows).toHaveLength(4);
    expect(held.rows.reduce((sum, r) => sum + Number(r.n), 0)).toBeGreaterThan(250);
    const gus = await db.query<{ n: string }>(`SELECT count(*) AS n FROM patient_search_keys WHERE key = 'guswhi'`);
    expect(Number(gus.rows[0].n)).toBeGreaterThan(0);

    // After it, a rename, a multi-row update and a delete keep the table exact.
    await db.query(`UPDATE patients SET last_name = 'Whitehead' WHERE last_name = 'White' AND mode = 'live'`);
    await db.query(`UPDATE patients SET first_name = 'Ozzy' WHERE id IN (SELECT id FROM patients ORDER BY created_at LIMIT 7)`);
    await db.query(`DELETE FROM patients WHERE first_name = 'Angus' AND mode = 'test'`);
    expect(await drift()).toBe(0);
  });
});
