import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the workers' retention sweeps need (docs/data-retention.md):
 * - IDX_EVENTS_CREATED_BRIN finds events past EVENTS_RETENTION_DAYS across tenants. Events are appended in
 *   time order, so a BRIN index of a few pages serves it, at almost no cost per inserted event.
 * - email_messages.body_cleared_at: when the sweep cleared a sent message's stored bodies; the check that a
 *   message has a body now holds until then. IDX_EMAIL_MESSAGES_BODY_HELD lists the sent messages whose
 *   bodies are still stored, by sending time: the sweep's queue, which the sweep keeps short.
 */
export class RetentionSweeps1764070000002 implements MigrationInterface {
  name = 'RetentionSweeps1764070000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX "IDX_EVENTS_CREATED_BRIN" ON events USING brin (created_at)`);
    await q.query(`ALTER TABLE email_messages ADD COLUMN body_cleared_at timestamptz(3)`);
    await q.query(`ALTER TABLE email_messages DROP CONSTRAINT email_messages_check`);
    await q.query(`ALTER TABLE email_messages ADD CHECK (html_body IS NOT NULL OR text_body IS NOT NULL OR body_cleared_at IS NOT NULL)`);
    await q.query(
      `CREATE INDEX "IDX_EMAIL_MESSAGES_BODY_HELD" ON email_messages (sent_at) WHERE status = 'sent' AND body_cleared_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX "IDX_EMAIL_MESSAGES_BODY_HELD"`);
    await q.query(`DELETE FROM email_messages WHERE html_body IS NULL AND text_body IS NULL`);
    await q.query(`ALTER TABLE email_messages DROP CONSTRAINT email_messages_check`);
    await q.query(`ALTER TABLE email_messages ADD CHECK (html_body IS NOT NULL OR text_body IS NOT NULL)`);
    await q.query(`ALTER TABLE email_messages DROP COLUMN body_cleared_at`);
    await q.query(`DROP INDEX "IDX_EVENTS_CREATED_BRIN"`);
  }
}
