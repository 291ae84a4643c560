import { useSchemaBefore } from '../helpers/migrations';

/** The migration that adds appointments.manage_id: everything before it is the old schema. */
const MANAGE_IDS = 1764150000000;

/**
 * The manage ids given to the appointments a database already holds when it is migrated, on a database of its
 * own held at the schema before: every appointment, in each tenant and mode and across several batches, gets
 * a distinct random id, and the column is then required and unique.
 */
describe('Migration adding the manage ids of appointments', () => {
  const schema = useSchemaBefore(MANAGE_IDS, 'manage_ids');

  it('gives every existing appointment a distinct 16-character base62 id, then requires one, unique', async () => {
    const { db } = schema;
    // Two tenants, both modes, one provider and patient each; 12,000 appointments (more than two batches).
    await db.query(
      `INSERT INTO tenants (id, name, created_at) SELECT gen_random_uuid(), 'Clinic ' || n, now() FROM generate_series(1, 2) n`,
    );
    await db.query(
      `INSERT INTO providers (id, tenant_id, mode, name, timezone, working_hours, is_active, created_at, updated_at)
       SELECT gen_random_uuid(), t.id, m, 'Dr. ' || m, 'UTC', '{}', true, now(), now() FROM tenants t, unnest(ARRAY['test', 'live']) m`,
    );
    await db.query(
      `INSERT INTO patients (id, tenant_id, mode, joining_code, first_name, last_name, patient_type, patient_status, tags, created_at, updated_at)
       SELECT gen_random_uuid(), tenant_id, mode, translate(lpad(row_number() OVER ()::text, 8, '0'), '0123456789', 'QXZVJKWYPU'),
              'Pat', 'Ient', 'patient', 'active', '{}', now(), now() FROM providers`,
    );
    await db.query(
      `INSERT INTO appointments (id, tenant_id, mode, patient_id, provider_id, starts_at, ends_at, duration, status, created_at, updated_at)
       SELECT gen_random_uuid(), pr.tenant_id, pr.mode, pa.id, pr.id, at, at + interval '15 minutes', 15, 'completed', now(), now()
         FROM providers pr JOIN patients pa ON pa.tenant_id = pr.tenant_id AND pa.mode = pr.mode,
              generate_series(1, 3000) n, LATERAL (SELECT now() - n * interval '20 minutes' AS at) t`,
    );
    await schema.migrate();

    const ids = (await db.query<{ manage_id: string }>(`SELECT manage_id FROM appointments`)).rows.map((r) => r.manage_id);
    expect(ids).toHaveLength(12_000);
    expect(ids.every((id) => /^[0-9A-Za-z]{16}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    // Drawn from all of base62: every symbol turns up at each position.
    expect(new Set(ids.map((id) => id[0])).size).toBe(62);
    expect(new Set(ids.map((id) => id[15])).size).toBe(62);

    const index = await db.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE indexname = 'UQ_APPOINTMENTS_MANAGE_ID'`);
    expect(index.rows.map((r) => r.indexdef)).toEqual([
      expect.stringMatching(/^CREATE UNIQUE INDEX .* ON public\.appointments USING btree \(manage_id\)$/),
    ]);
    const copy = (manageId: string | null) =>
      db
        .query(
          `INSERT INTO appointments (id, tenant_id, mode, patient_id, provider_id, starts_at, ends_at, duration, status, created_at, updated_at, manage_id)
           SELECT gen_random_uuid(), tenant_id, mode, patient_id, provider_id, starts_at, ends_at, duration, status, now(), now(), $1
             FROM appointments LIMIT 1`,
          [manageId],
        )
        .then(
          () => 'inserted',
          (err: { code?: string }) => err.code,
        );
    expect(await copy(null)).toBe('23502');
    expect(await copy(ids[0])).toBe('23505');
  });
});
