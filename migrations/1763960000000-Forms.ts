import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Forms, their versions and their submissions.
 *
 * - IDX_FORMS_TENANT_MODE_CREATED (tenant_id, mode, created_at, id): GET /forms pages newest first; the
 *   isActive filter is applied during the walk (a tenant has tens of forms, not millions).
 * - UQ_FORMS_TENANT_MODE_SLUG: a slug is unique per tenant and mode; concurrent creates with one slug are
 *   settled by it (23505 → 409 slug_taken).
 * - form_versions keeps every version's fields and is never updated: a submission names (form, version),
 *   and reading it back joins on UQ_FORM_VERSIONS_TENANT_MODE_FORM_VERSION.
 * - IDX_FORM_SUBMISSIONS_TENANT_MODE_FORM_CREATED: GET /forms/{id}/submissions pages newest first, and
 *   from/to are a range of it. IDX_FORM_SUBMISSIONS_TENANT_MODE_FORM_PATIENT (partial) serves the
 *   patientId filter.
 * - forms.submissions_count is incremented by one UPDATE in the submission's transaction, so concurrent
 *   submissions serialise only on that row and the count is exact.
 */
export class Forms1763960000000 implements MigrationInterface {
  name = 'Forms1763960000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE forms (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        name varchar(200) NOT NULL,
        slug varchar(100) NOT NULL,
        description varchar(2000),
        is_active boolean NOT NULL,
        fields jsonb NOT NULL,
        version integer NOT NULL,
        submissions_count integer NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX "IDX_FORMS_TENANT_MODE_CREATED" ON forms (tenant_id, mode, created_at, id)`);
    await q.query(`CREATE UNIQUE INDEX "UQ_FORMS_TENANT_MODE_SLUG" ON forms (tenant_id, mode, slug)`);

    await q.query(`
      CREATE TABLE form_versions (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        form_id uuid NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
        version integer NOT NULL,
        fields jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX "UQ_FORM_VERSIONS_TENANT_MODE_FORM_VERSION" ON form_versions (tenant_id, mode, form_id, version)`);

    await q.query(`
      CREATE TABLE form_submissions (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        form_id uuid NOT NULL REFERENCES forms(id) ON DELETE CASCADE,
        form_version integer NOT NULL,
        patient_id uuid REFERENCES patients(id) ON DELETE SET NULL,
        answers jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(
      `CREATE INDEX "IDX_FORM_SUBMISSIONS_TENANT_MODE_FORM_CREATED" ON form_submissions (tenant_id, mode, form_id, created_at, id)`,
    );
    await q.query(
      `CREATE INDEX "IDX_FORM_SUBMISSIONS_TENANT_MODE_FORM_PATIENT" ON form_submissions (tenant_id, mode, form_id, patient_id, created_at, id)
        WHERE patient_id IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE form_submissions`);
    await q.query(`DROP TABLE form_versions`);
    await q.query(`DROP TABLE forms`);
  }
}
