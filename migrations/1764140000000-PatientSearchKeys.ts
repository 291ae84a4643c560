import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * One row per patient and *join key*, in page order: `(tenant_id, mode, key, created_at, patient_id)`. A join
 * key is the three characters on each side of a space between words of `search_text` (runs of the other
 * joining characters around the space included), when neither side holds a joining character or a digit:
 * "gus white" has `guswhi`, "mary ann smith" `aryann` and `annsmi`. Every patient whose text holds a term
 * holds each of the term's own join keys (`patient_search_join_keys`, the same function for both), so a search
 * for a full name walks its key's entries newest first and stops at the page's end: a name held by a thousand
 * patients costs what one held by ten does, where the trigram index finds all of them and sorts them.
 * Kept by statement-level triggers from the transition tables, as patient_tags is; a patient's created_at never
 * changes, so the key of its rows never moves. docs/decisions/0001-indexes-for-lists-at-scale.md.
 */
export class PatientSearchKeys1764140000000 implements MigrationInterface {
  name = 'PatientSearchKeys1764140000000';

  async up(q: QueryRunner): Promise<void> {
    // The text is cut at each run of joining characters that holds a space; a key is the last three
    // characters of one part and the first three of the next, when all six are neither joining nor digits.
    // PL/pgSQL rather than SQL: a SQL function that cannot be inlined is planned again in every statement
    // that calls it, and the triggers call it once a statement.
    await q.query(`
      CREATE FUNCTION patient_search_join_keys(t text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
      DECLARE
        parts text[] := regexp_split_to_array(t, '[ .@+_''-]* [ .@+_''-]*');
        keys text[] := '{}';
        key text;
      BEGIN
        FOR i IN 1 .. cardinality(parts) - 1 LOOP
          key := right(parts[i], 3) || left(parts[i + 1], 3);
          IF key ~ '^[^ .@+_''0-9-]{6}$' AND NOT key = ANY (keys) THEN
            keys := keys || key;
          END IF;
        END LOOP;
        RETURN keys;
      END $$`);
    await q.query(`
      CREATE TABLE patient_search_keys (
        tenant_id uuid NOT NULL,
        mode varchar(4) NOT NULL,
        key text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        patient_id uuid NOT NULL,
        PRIMARY KEY (tenant_id, mode, key, created_at, patient_id)
      )`);
    const keysOf = (rows: string): string =>
      `SELECT r.tenant_id, r.mode, k.key, r.created_at, r.id FROM ${rows} r CROSS JOIN LATERAL unnest(patient_search_join_keys(r.search_text)) AS k(key)`;
    await q.query(`
      CREATE FUNCTION patient_search_keys_apply() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO patient_search_keys (tenant_id, mode, key, created_at, patient_id) ${keysOf('new_rows')};
          RETURN NULL;
        END IF;
        -- An update: only the keys that went or came (most updates change no name).
        DELETE FROM patient_search_keys sk USING (${keysOf('old_rows')} EXCEPT ${keysOf('new_rows')}) gone (tenant_id, mode, key, created_at, id)
        WHERE sk.tenant_id = gone.tenant_id AND sk.mode = gone.mode AND sk.key = gone.key
          AND sk.created_at = gone.created_at AND sk.patient_id = gone.id;
        INSERT INTO patient_search_keys (tenant_id, mode, key, created_at, patient_id)
        ${keysOf('new_rows')} EXCEPT ${keysOf('old_rows')};
        RETURN NULL;
      END $$`);
    // A DELETE statement has no new_rows: its trigger gets a function that names only old_rows.
    await q.query(`
      CREATE FUNCTION patient_search_keys_remove() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM patient_search_keys sk USING (${keysOf('old_rows')}) gone (tenant_id, mode, key, created_at, id)
        WHERE sk.tenant_id = gone.tenant_id AND sk.mode = gone.mode AND sk.key = gone.key
          AND sk.created_at = gone.created_at AND sk.patient_id = gone.id;
        RETURN NULL;
      END $$`);
    await q.query(`CREATE TRIGGER patient_search_keys_insert AFTER INSERT ON patients
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patient_search_keys_apply()`);
    await q.query(`CREATE TRIGGER patient_search_keys_update AFTER UPDATE ON patients
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION patient_search_keys_apply()`);
    await q.query(`CREATE TRIGGER patient_search_keys_delete AFTER DELETE ON patients
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION patient_search_keys_remove()`);
    await q.query(`INSERT INTO patient_search_keys (tenant_id, mode, key, created_at, patient_id) ${keysOf('patients')}`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER patient_search_keys_delete ON patients`);
    await q.query(`DROP TRIGGER patient_search_keys_update ON patients`);
    await q.query(`DROP TRIGGER patient_search_keys_insert ON patients`);
    await q.query(`DROP FUNCTION patient_search_keys_remove()`);
    await q.query(`DROP FUNCTION patient_search_keys_apply()`);
    await q.query(`DROP TABLE patient_search_keys`);
    await q.query(`DROP FUNCTION patient_search_join_keys(text)`);
  }
}
