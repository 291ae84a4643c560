import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The search's trigram index over `search_text` without the characters that join words (space . @ + - _ '),
 * so that trigrams also span them: "gus white" gives "usw" and "swh", which few patients have, where the words'
 * own trigrams ("gus", "whi") belong to thousands. A search asks the index for the parts of its term around
 * those joins and checks the whole term on the rows it finds (`searchWindows` in patients.repository.ts;
 * docs/decisions/0001-indexes-for-lists-at-scale.md). It replaces the index of the same name.
 */
export class PatientSearchJoinedIndex1764130000000 implements MigrationInterface {
  name = 'PatientSearchJoinedIndex1764130000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_PATIENTS_SEARCH"`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_SEARCH" ON patients USING gin (translate(search_text, ' .@+-_''', '') gin_trgm_ops)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_PATIENTS_SEARCH"`);
    await q.query(`CREATE INDEX "IDX_PATIENTS_SEARCH" ON patients USING gin (search_text gin_trgm_ops)`);
  }
}
