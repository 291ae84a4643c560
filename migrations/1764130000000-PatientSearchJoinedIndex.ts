import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The search's trigram index over `search_text` without the characters that join words (space . @ + - _ '),
 * so that trigrams also span them: "gus white" gives "usw" and "swh", which few patients have, where the words'
 * own trigrams ("gus", "whi") belong to thousands. A search asks the index for the parts of its term around
 * those joins and checks the whole term on the rows it finds (`searchWindows` in src/modules/patients/search-windows.ts;
 * docs/decisions/0001-indexes-for-lists-at-scale.md). It replaces the index of the same name.
 */
export class PatientSearchJoinedIndex1764130000000 implements MigrationInterface {
  name = 'PatientSearchJoinedIndex1764130000000';

  async up(q: QueryRunner): Promise<void> {
    // Built beside the old one, which is dropped only at the end: the build holds writes (a share lock), and
    // only the swap, not the build, holds reads too.
    await q.query(`CREATE INDEX "IDX_PATIENTS_SEARCH_JOINED" ON patients USING gin (translate(search_text, ' .@+-_''', '') gin_trgm_ops)`);
    await q.query(`DROP INDEX "IDX_PATIENTS_SEARCH"`);
    await q.query(`ALTER INDEX "IDX_PATIENTS_SEARCH_JOINED" RENAME TO "IDX_PATIENTS_SEARCH"`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "IDX_PATIENTS_SEARCH_WORDS" ON patients USING gin (search_text gin_trgm_ops)`);
    await q.query(`DROP INDEX "IDX_PATIENTS_SEARCH"`);
    await q.query(`ALTER INDEX "IDX_PATIENTS_SEARCH_WORDS" RENAME TO "IDX_PATIENTS_SEARCH"`);
  }
}
