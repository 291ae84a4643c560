import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Records the expression of the generated column `patients.search_text` where TypeORM looks for it
 * (`typeorm_metadata`), so that the entity, which declares it, and the database agree and
 * `migration:generate` proposes nothing. The text must stay equal to PATIENT_SEARCH_TEXT in
 * patient.entity.ts (the schema-drift e2e test fails otherwise).
 */
export class EntityMetadata1763930000000 implements MigrationInterface {
  name = 'EntityMetadata1763930000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS typeorm_metadata (
        "type" varchar NOT NULL, "database" varchar, "schema" varchar, "table" varchar, "name" varchar, "value" text
      )`);
    await q.query(
      `INSERT INTO typeorm_metadata ("type", "database", "schema", "table", "name", "value")
       VALUES ('GENERATED_COLUMN', current_database(), current_schema(), 'patients', 'search_text', $1)`,
      ["lower(first_name || ' ' || last_name || ' ' || coalesce(email, '') || ' ' || coalesce(phone, '') || ' ' || joining_code)"],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM typeorm_metadata WHERE "type" = 'GENERATED_COLUMN' AND "table" = 'patients' AND "name" = 'search_text'`);
  }
}
