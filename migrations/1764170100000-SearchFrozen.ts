import { MigrationInterface, QueryRunner } from 'typeorm';
import { PatientTags1764110000000 } from './1764110000000-PatientTags';
import { PatientSearchJoinedIndex1764130000000 } from './1764130000000-PatientSearchJoinedIndex';
import { PatientSearchKeys1764140000000 } from './1764140000000-PatientSearchKeys';

/**
 * Patient search and the tags filter without their trigger-kept tables: every list and search stays within
 * its target at a million patients without them (docs/decisions/0009-search-frozen.md, bench/README.md).
 * - patient_search_keys, its triggers and the join-key function go: a full name is answered by the trigram
 *   index, like any other rare term.
 * - IDX_PATIENTS_SEARCH indexes `search_text` itself again, not the text without the characters that join
 *   words, so that what a search matches is the generated column alone.
 * - patient_tags and its triggers go; IDX_PATIENTS_TAGS, a GIN index on `tags`, answers a rare tag and the
 *   page-order walk a common one.
 * patient_tag_counts stays: GET /patients/tags would otherwise count every patient's tags.
 */
export class SearchFrozen1764170100000 implements MigrationInterface {
  name = 'SearchFrozen1764170100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER patient_search_keys_delete ON patients`);
    await q.query(`DROP TRIGGER patient_search_keys_update ON patients`);
    await q.query(`DROP TRIGGER patient_search_keys_insert ON patients`);
    await q.query(`DROP FUNCTION patient_search_keys_remove()`);
    await q.query(`DROP FUNCTION patient_search_keys_apply()`);
    await q.query(`DROP TABLE patient_search_keys`);
    await q.query(`DROP FUNCTION patient_search_join_keys(text)`);
    // Built beside the old one, which is dropped only at the end: only the swap holds reads.
    await q.query(`CREATE INDEX "IDX_PATIENTS_SEARCH_TEXT" ON patients USING gin (search_text gin_trgm_ops)`);
    await q.query(`DROP INDEX "IDX_PATIENTS_SEARCH"`);
    await q.query(`ALTER INDEX "IDX_PATIENTS_SEARCH_TEXT" RENAME TO "IDX_PATIENTS_SEARCH"`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_TAGS" ON patients USING gin (tags)`);
    await q.query(`DROP TRIGGER patient_tags_delete ON patients`);
    await q.query(`DROP TRIGGER patient_tags_update ON patients`);
    await q.query(`DROP TRIGGER patient_tags_insert ON patients`);
    await q.query(`DROP FUNCTION patient_tags_remove()`);
    await q.query(`DROP FUNCTION patient_tags_apply()`);
    await q.query(`DROP TABLE patient_tags`);
  }

  /** Each piece is put back by the migration that first made it, filled in from the patients of the day. */
  async down(q: QueryRunner): Promise<void> {
    // PatientTags replaced this index with its table, and drops it again.
    await q.query(`CREATE INDEX "IDX_PATIENTS_TENANT_TAGS" ON patients USING gin (tenant_id, tags)`);
    await new PatientTags1764110000000().up(q);
    await q.query(`DROP INDEX "IDX_PATIENTS_TAGS"`);
    await new PatientSearchJoinedIndex1764130000000().up(q);
    await new PatientSearchKeys1764140000000().up(q);
  }
}
