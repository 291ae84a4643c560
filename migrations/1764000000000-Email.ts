import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Email templates and the messages sent (or to be sent) through the email queue.
 *
 * - email_templates: at least one of the HTML and text parts (CHECK). IDX_EMAIL_TEMPLATES_TENANT_MODE_CREATED
 *   serves GET /emails/templates newest first.
 * - email_messages: one row per message, written before its job is enqueued; the message id is the
 *   BullMQ job id. `status` moves queued → sending → sent | failed, or queued → suppressed / failed.
 *   `sending` means "handed to the SMTP server": it is set by the statement that lets the final dot of
 *   the DATA command go out (see email-sender.ts), so a row found `sending` after a crash was handed
 *   over and is not sent again.
 * - sequence_id / enrollment_id / step belong to the sequences module (no foreign keys here: their tables
 *   come with it). UQ_EMAIL_MESSAGES_ENROLLMENT_STEP makes one message per enrolment step, so a step job
 *   that runs twice queues its message once.
 * - IDX_EMAIL_MESSAGES_DUE (partial, on the rows that are not settled) is what the sweep that re-enqueues
 *   lost jobs walks; it stays as small as the backlog.
 */
export class Email1764000000000 implements MigrationInterface {
  name = 'Email1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE email_templates (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        name varchar(200) NOT NULL,
        subject varchar(998) NOT NULL,
        html_content text,
        text_content text,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        CHECK (html_content IS NOT NULL OR text_content IS NOT NULL)
      )`);
    await q.query(`CREATE INDEX "IDX_EMAIL_TEMPLATES_TENANT_MODE_CREATED" ON email_templates (tenant_id, mode, created_at, id)`);

    await q.query(`
      CREATE TABLE email_messages (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        patient_id uuid REFERENCES patients(id) ON DELETE SET NULL,
        template_id uuid REFERENCES email_templates(id) ON DELETE SET NULL,
        sequence_id uuid,
        enrollment_id uuid,
        step integer,
        to_address varchar(320) NOT NULL,
        subject varchar(998) NOT NULL,
        html_body text,
        text_body text,
        status varchar(16) NOT NULL CHECK (status IN ('queued', 'sending', 'sent', 'failed', 'suppressed')),
        attempts integer NOT NULL DEFAULT 0,
        last_error varchar(500),
        smtp_message_id varchar(998),
        transport varchar(8) CHECK (transport IN ('smtp', 'log')),
        next_attempt_at timestamptz(3) NOT NULL,
        handed_over_at timestamptz(3),
        sent_at timestamptz(3),
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL,
        CHECK (html_body IS NOT NULL OR text_body IS NOT NULL)
      )`);
    await q.query(`CREATE INDEX "IDX_EMAIL_MESSAGES_TENANT_MODE_CREATED" ON email_messages (tenant_id, mode, created_at, id)`);
    await q.query(
      `CREATE INDEX "IDX_EMAIL_MESSAGES_TENANT_MODE_PATIENT" ON email_messages (tenant_id, mode, patient_id, created_at, id) WHERE patient_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX "IDX_EMAIL_MESSAGES_TENANT_MODE_SEQUENCE" ON email_messages (tenant_id, mode, sequence_id, created_at, id) WHERE sequence_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "IDX_EMAIL_MESSAGES_TENANT_MODE_STATUS" ON email_messages (tenant_id, mode, status, created_at, id)`);
    await q.query(
      `CREATE UNIQUE INDEX "UQ_EMAIL_MESSAGES_ENROLLMENT_STEP" ON email_messages (tenant_id, mode, enrollment_id, step) WHERE enrollment_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX "IDX_EMAIL_MESSAGES_DUE" ON email_messages (next_attempt_at) WHERE status IN ('queued', 'sending')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE email_messages`);
    await q.query(`DROP TABLE email_templates`);
  }
}
