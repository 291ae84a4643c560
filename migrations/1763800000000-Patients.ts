import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Patients, their custom field definitions, tag counts, clinical data and bulk-import jobs.
 *
 * Which index serves which request, sized for a million patients in one tenant and mode:
 * - IDX_PATIENTS_TENANT_MODE_CREATED (tenant_id, mode, created_at, id): every list page is a keyset scan
 *   of it, newest first, and it serves dateFrom/dateTo (a range on created_at). Filters on low-cardinality
 *   columns (patientType, patientStatus, gender, hasEmail, hasPhone) are applied during this walk: a
 *   page needs 51 matches, so even a value held by 1 % of patients costs a few thousand index entries,
 *   where a separate index per column would cost writes on every insert for little gain.
 * - IDX_PATIENTS_TENANT_SEARCH, GIN (tenant_id, search_text gin_trgm_ops) with btree_gin: `search` is a
 *   case-insensitive substring match over names, email, phone and joining code (LIKE '%term%'), which
 *   only a trigram index answers without reading every row. tenant_id is in the index so that one
 *   tenant's search does not wade through other tenants' matches (GIN intersects both keys).
 *   search_text is a stored generated column, so the index and the query use the same expression.
 * - IDX_PATIENTS_TENANT_TAGS, GIN (tenant_id, tags): `tags` (any of) is `tags && $1`, an array overlap.
 * - IDX_PATIENTS_TENANT_MODE_EMAIL (tenant_id, mode, lower(email)): the exact `email` filter and
 *   finding a patient by email (public booking).
 * - UQ_PATIENTS_TENANT_MODE_EXTERNAL_ID, partial unique: `externalId` is unique per tenant and mode when
 *   present; it serves the `externalId` filter and is the conflict target of the bulk-import upsert.
 *   Concurrent creates with one externalId are settled by it (23505 → 409 external_id_taken).
 * - UQ_PATIENTS_TENANT_JOINING_CODE (tenant_id, joining_code): a joining code is unique in the tenant
 *   (across modes, so a code read out on the phone names one patient) and the search also finds it.
 * - IDX_PATIENTS_TENANT_MODE_UPDATED (tenant_id, mode, updated_at): `updatedSince`, the sync filter an
 *   integration polls with, is a range scan of it.
 * - IDX_PATIENTS_TENANT_MODE_BIRTH (tenant_id, mode, date_of_birth): ageMin/ageMax become a range of
 *   birth dates.
 * - patient_tag_counts is kept by statement-level triggers, so GET /patients/tags reads a few hundred
 *   rows instead of unnesting a million patients' tags; bulk imports update it once per statement.
 *   Each tag's count is split over 16 shard rows (a statement picks one at random): a popular tag would
 *   otherwise be one row that every concurrent create locks until its commit, serialising creates.
 * - Clinical tables: (tenant_id, mode, patient_id, …) answers one patient's clinical record.
 * - patient_import_jobs: looked up by primary key only.
 */
export class Patients1763800000000 implements MigrationInterface {
  name = 'Patients1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`CREATE EXTENSION IF NOT EXISTS btree_gin`);
    await q.query(`
      CREATE TABLE patients (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        external_id varchar(255),
        joining_code char(8) NOT NULL,
        email varchar(320),
        phone varchar(20),
        first_name varchar(100) NOT NULL,
        last_name varchar(100) NOT NULL,
        date_of_birth date,
        gender varchar(50),
        address varchar(500),
        patient_type varchar(8) NOT NULL DEFAULT 'prospect' CHECK (patient_type IN ('prospect', 'patient', 'lead')),
        patient_status varchar(10) NOT NULL DEFAULT 'active'
          CHECK (patient_status IN ('active', 'inactive', 'archived', 'discharged')),
        tags text[] NOT NULL DEFAULT '{}',
        custom_fields jsonb NOT NULL DEFAULT '{}'::jsonb,
        email_opt_out boolean NOT NULL DEFAULT false,
        version integer NOT NULL DEFAULT 1,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        search_text text GENERATED ALWAYS AS (
          lower(first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || coalesce(phone, '') || ' ' || joining_code)
        ) STORED
      )`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_TENANT_MODE_CREATED" ON patients (tenant_id, mode, created_at, id)`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_TENANT_SEARCH" ON patients USING gin (tenant_id, search_text gin_trgm_ops)`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_TENANT_TAGS" ON patients USING gin (tenant_id, tags)`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_TENANT_MODE_EMAIL" ON patients (tenant_id, mode, lower(email)) WHERE email IS NOT NULL`);
    await q.query(
      `CREATE UNIQUE INDEX "UQ_PATIENTS_TENANT_MODE_EXTERNAL_ID" ON patients (tenant_id, mode, external_id) WHERE external_id IS NOT NULL`,
    );
    await q.query(`CREATE UNIQUE INDEX "UQ_PATIENTS_TENANT_JOINING_CODE" ON patients (tenant_id, joining_code)`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_TENANT_MODE_UPDATED" ON patients (tenant_id, mode, updated_at)`);
    await q.query(
      `CREATE INDEX "IDX_PATIENTS_TENANT_MODE_BIRTH" ON patients (tenant_id, mode, date_of_birth) WHERE date_of_birth IS NOT NULL`,
    );

    // Tag counts, maintained per statement from the transition tables (one upsert per statement, in a
    // fixed order so that concurrent writers lock count rows in the same order and cannot deadlock).
    await q.query(`
      CREATE TABLE patient_tag_counts (
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL,
        tag text NOT NULL,
        shard smallint NOT NULL,
        count bigint NOT NULL,
        PRIMARY KEY (tenant_id, mode, tag, shard)
      )`);
    await q.query(`
      CREATE FUNCTION patient_tag_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        s smallint := floor(random() * 16)::smallint;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO patient_tag_counts AS c (tenant_id, mode, tag, shard, count)
          SELECT n.tenant_id, n.mode, t.tag, s, count(*) FROM new_rows n CROSS JOIN LATERAL unnest(n.tags) AS t(tag)
           GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
          ON CONFLICT (tenant_id, mode, tag, shard) DO UPDATE SET count = c.count + EXCLUDED.count;
        ELSIF TG_OP = 'UPDATE' THEN
          INSERT INTO patient_tag_counts AS c (tenant_id, mode, tag, shard, count)
          SELECT d.tenant_id, d.mode, d.tag, s, sum(d.delta) FROM (
            SELECT n.tenant_id, n.mode, t.tag, 1 AS delta FROM new_rows n CROSS JOIN LATERAL unnest(n.tags) AS t(tag)
            UNION ALL
            SELECT o.tenant_id, o.mode, t.tag, -1 FROM old_rows o CROSS JOIN LATERAL unnest(o.tags) AS t(tag)
          ) d GROUP BY 1, 2, 3 HAVING sum(d.delta) <> 0 ORDER BY 1, 2, 3
          ON CONFLICT (tenant_id, mode, tag, shard) DO UPDATE SET count = c.count + EXCLUDED.count;
        ELSE
          INSERT INTO patient_tag_counts AS c (tenant_id, mode, tag, shard, count)
          SELECT o.tenant_id, o.mode, t.tag, s, -count(*) FROM old_rows o CROSS JOIN LATERAL unnest(o.tags) AS t(tag)
           GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
          ON CONFLICT (tenant_id, mode, tag, shard) DO UPDATE SET count = c.count + EXCLUDED.count;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER patient_tag_counts_insert AFTER INSERT ON patients
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patient_tag_counts_apply()`);
    await q.query(`CREATE TRIGGER patient_tag_counts_update AFTER UPDATE ON patients
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patient_tag_counts_apply()`);
    await q.query(`CREATE TRIGGER patient_tag_counts_delete AFTER DELETE ON patients
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION patient_tag_counts_apply()`);

    await q.query(`
      CREATE TABLE patient_custom_fields (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        key varchar(64) NOT NULL,
        label varchar(200) NOT NULL,
        type varchar(8) NOT NULL CHECK (type IN ('text', 'number', 'boolean', 'date', 'select')),
        options text[],
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX "UQ_PATIENT_CUSTOM_FIELDS_TENANT_MODE_KEY" ON patient_custom_fields (tenant_id, mode, key)`);

    const clinical = (table: string, columns: string): string => `
      CREATE TABLE ${table} (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        patient_id uuid NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
        ${columns},
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`;
    await q.query(
      clinical(
        'patient_conditions',
        `code varchar(64), code_system varchar(255), display varchar(500) NOT NULL,
         clinical_status varchar(16) NOT NULL, onset_date date, recorded_at timestamptz(3) NOT NULL`,
      ),
    );
    await q.query(
      clinical(
        'patient_medications',
        `name varchar(500) NOT NULL, code varchar(64), dosage varchar(500), status varchar(20) NOT NULL,
         start_date date, end_date date`,
      ),
    );
    await q.query(
      clinical(
        'patient_encounters',
        `appointment_id uuid, provider_id uuid, datetime timestamptz(3) NOT NULL, type varchar(100),
         reason varchar(1000), notes text`,
      ),
    );
    await q.query(`CREATE INDEX "IDX_PATIENT_CONDITIONS_PATIENT" ON patient_conditions (tenant_id, mode, patient_id, recorded_at)`);
    await q.query(`CREATE INDEX "IDX_PATIENT_MEDICATIONS_PATIENT" ON patient_medications (tenant_id, mode, patient_id, created_at)`);
    await q.query(`CREATE INDEX "IDX_PATIENT_ENCOUNTERS_PATIENT" ON patient_encounters (tenant_id, mode, patient_id, datetime)`);
    // One encounter per appointment: completing an appointment twice must not record two.
    await q.query(
      `CREATE UNIQUE INDEX "UQ_PATIENT_ENCOUNTERS_APPOINTMENT" ON patient_encounters (tenant_id, mode, appointment_id) WHERE appointment_id IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE patient_import_jobs (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        status varchar(10) NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
        total integer NOT NULL,
        processed integer NOT NULL DEFAULT 0,
        created integer NOT NULL DEFAULT 0,
        updated integer NOT NULL DEFAULT 0,
        failed integer NOT NULL DEFAULT 0,
        errors jsonb NOT NULL DEFAULT '[]'::jsonb,
        rows jsonb NOT NULL,
        created_by_key_id uuid,
        completed_at timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE patient_import_jobs`);
    await q.query(`DROP TABLE patient_encounters`);
    await q.query(`DROP TABLE patient_medications`);
    await q.query(`DROP TABLE patient_conditions`);
    await q.query(`DROP TABLE patient_custom_fields`);
    await q.query(`DROP TABLE patients`);
    await q.query(`DROP FUNCTION patient_tag_counts_apply()`);
    await q.query(`DROP TABLE patient_tag_counts`);
  }
}
