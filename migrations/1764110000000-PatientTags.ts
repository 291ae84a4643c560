import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per patient and tag, in page order: `(tenant_id, mode, tag, created_at, patient_id)`. The `tags`
 * filter walks a tag's entries newest first and stops at the page's end, so a tag held by 0.1 % of patients
 * costs the same at a million as at a thousand; the GIN index it replaces found every holder and sorted them.
 * Statement-level triggers keep it from the patients table's transition tables, so bulk imports pay once per
 * statement. A patient's created_at never changes, so the key of its rows never moves.
 */
export class PatientTags1764110000000 implements MigrationInterface {
  name = 'PatientTags1764110000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE patient_tags (
        tenant_id uuid NOT NULL,
        mode varchar(4) NOT NULL,
        tag text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        patient_id uuid NOT NULL,
        PRIMARY KEY (tenant_id, mode, tag, created_at, patient_id)
      )`);
    await q.query(`
      CREATE FUNCTION patient_tags_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO patient_tags (tenant_id, mode, tag, created_at, patient_id)
          SELECT n.tenant_id, n.mode, t.tag, n.created_at, n.id FROM new_rows n CROSS JOIN LATERAL unnest(n.tags) AS t(tag)
          ON CONFLICT DO NOTHING;
          RETURN NULL;
        END IF;
        -- An update: only the tags that went or came (most updates change none).
        DELETE FROM patient_tags pt USING (
          SELECT o.tenant_id, o.mode, t.tag, o.created_at, o.id FROM old_rows o CROSS JOIN LATERAL unnest(o.tags) AS t(tag)
          EXCEPT
          SELECT n.tenant_id, n.mode, t.tag, n.created_at, n.id FROM new_rows n CROSS JOIN LATERAL unnest(n.tags) AS t(tag)
        ) gone
        WHERE pt.tenant_id = gone.tenant_id AND pt.mode = gone.mode AND pt.tag = gone.tag
          AND pt.created_at = gone.created_at AND pt.patient_id = gone.id;
        INSERT INTO patient_tags (tenant_id, mode, tag, created_at, patient_id)
        SELECT n.tenant_id, n.mode, t.tag, n.created_at, n.id FROM new_rows n CROSS JOIN LATERAL unnest(n.tags) AS t(tag)
        EXCEPT
        SELECT o.tenant_id, o.mode, t.tag, o.created_at, o.id FROM old_rows o CROSS JOIN LATERAL unnest(o.tags) AS t(tag)
        ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$`);
    // A DELETE statement has no new_rows: its trigger gets a function that names only old_rows.
    await q.query(`
      CREATE FUNCTION patient_tags_remove() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM patient_tags pt USING (
          SELECT o.tenant_id, o.mode, t.tag, o.created_at, o.id FROM old_rows o CROSS JOIN LATERAL unnest(o.tags) AS t(tag)
        ) gone
        WHERE pt.tenant_id = gone.tenant_id AND pt.mode = gone.mode AND pt.tag = gone.tag
          AND pt.created_at = gone.created_at AND pt.patient_id = gone.id;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER patient_tags_insert AFTER INSERT ON patients
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patient_tags_apply()`);
    await q.query(`CREATE TRIGGER patient_tags_update AFTER UPDATE ON patients
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patient_tags_apply()`);
    await q.query(`CREATE TRIGGER patient_tags_delete AFTER DELETE ON patients
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION patient_tags_remove()`);
    await q.query(`
      INSERT INTO patient_tags (tenant_id, mode, tag, created_at, patient_id)
      SELECT p.tenant_id, p.mode, t.tag, p.created_at, p.id FROM patients p CROSS JOIN LATERAL unnest(p.tags) AS t(tag)
      ON CONFLICT DO NOTHING`);
    await q.query(`DROP INDEX "IDX_PATIENTS_TENANT_TAGS"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "IDX_PATIENTS_TENANT_TAGS" ON patients USING gin (tenant_id, tags)`);
    await q.query(`DROP TRIGGER patient_tags_delete ON patients`);
    await q.query(`DROP TRIGGER patient_tags_update ON patients`);
    await q.query(`DROP TRIGGER patient_tags_insert ON patients`);
    await q.query(`DROP FUNCTION patient_tags_remove()`);
    await q.query(`DROP FUNCTION patient_tags_apply()`);
    await q.query(`DROP TABLE patient_tags`);
  }
}
