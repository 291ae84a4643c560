import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Email sequences (drip campaigns) and their enrolments.
 *
 * - email_sequences.steps is jsonb `[{ templateId, delayMinutes }]`: steps are read and replaced whole,
 *   and their templates are checked to be the tenant's when written (templates are never deleted).
 * - enrollment_count is incremented in the enrolment's transaction by one UPDATE, so it is exact.
 * - UQ_EMAIL_SEQUENCE_ENROLLMENTS_SEQUENCE_PATIENT: one enrolment per patient and sequence; enrolling
 *   again is INSERT … ON CONFLICT DO NOTHING, a no-op.
 * - IDX_EMAIL_SEQUENCE_ENROLLMENTS_SEQUENCE_CREATED: GET /emails/sequences/{id}/enrollments, newest first;
 *   resume and archive walk a sequence's active enrolments through it too.
 * - IDX_EMAIL_SEQUENCE_ENROLLMENTS_DUE (partial, active only): the sweep that re-adds lost step jobs.
 */
export class EmailSequences1764010000001 implements MigrationInterface {
  name = 'EmailSequences1764010000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE email_sequences (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        name varchar(200) NOT NULL,
        description varchar(2000),
        status varchar(16) NOT NULL CHECK (status IN ('draft', 'active', 'paused', 'archived')),
        steps jsonb NOT NULL,
        enrollment_count integer NOT NULL DEFAULT 0,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX "IDX_EMAIL_SEQUENCES_TENANT_MODE_CREATED" ON email_sequences (tenant_id, mode, created_at, id)`);

    await q.query(`
      CREATE TABLE email_sequence_enrollments (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        sequence_id uuid NOT NULL REFERENCES email_sequences(id) ON DELETE CASCADE,
        patient_id uuid NOT NULL REFERENCES patients(id) ON DELETE CASCADE,
        status varchar(16) NOT NULL CHECK (status IN ('active', 'completed', 'cancelled', 'failed')),
        current_step integer NOT NULL,
        next_step_at timestamptz(3),
        last_message_id uuid,
        ended_reason varchar(500),
        ended_at timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(
      `CREATE UNIQUE INDEX "UQ_EMAIL_SEQUENCE_ENROLLMENTS_SEQUENCE_PATIENT" ON email_sequence_enrollments (tenant_id, mode, sequence_id, patient_id)`,
    );
    await q.query(
      `CREATE INDEX "IDX_EMAIL_SEQUENCE_ENROLLMENTS_SEQUENCE_CREATED" ON email_sequence_enrollments (tenant_id, mode, sequence_id, created_at, id)`,
    );
    await q.query(`CREATE INDEX "IDX_EMAIL_SEQUENCE_ENROLLMENTS_DUE" ON email_sequence_enrollments (next_step_at) WHERE status = 'active'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE email_sequence_enrollments`);
    await q.query(`DROP TABLE email_sequences`);
  }
}
