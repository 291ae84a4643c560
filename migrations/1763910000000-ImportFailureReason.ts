import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Bulk imports say why they failed (`failure_reason`), and remember where each worker start found the
 * cursor, so that an import resumed again and again without progress fails instead of looping.
 */
export class ImportFailureReason1763910000000 implements MigrationInterface {
  name = 'ImportFailureReason1763910000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE patient_import_jobs
        ADD COLUMN failure_reason text,
        ADD COLUMN started_at_row integer,
        ADD COLUMN starts_without_progress integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE patient_import_jobs
        DROP COLUMN failure_reason,
        DROP COLUMN started_at_row,
        DROP COLUMN starts_without_progress`);
  }
}
