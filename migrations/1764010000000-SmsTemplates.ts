import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * SMS templates. `body` is text, not varchar(1600): the API limits it to 1,600 characters as
 * class-validator counts them, which PostgreSQL's varchar would count differently for variation selectors.
 *
 * - IDX_SMS_TEMPLATES_TENANT_MODE_CREATED (tenant_id, mode, created_at, id): GET /sms/templates pages
 *   newest first.
 */
export class SmsTemplates1764010000000 implements MigrationInterface {
  name = 'SmsTemplates1764010000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sms_templates (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
        mode varchar(4) NOT NULL CHECK (mode IN ('test', 'live')),
        name varchar(200) NOT NULL,
        body text NOT NULL,
        created_at timestamptz(3) NOT NULL,
        updated_at timestamptz(3) NOT NULL
      )`);
    await q.query(`CREATE INDEX "IDX_SMS_TEMPLATES_TENANT_MODE_CREATED" ON sms_templates (tenant_id, mode, created_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sms_templates`);
  }
}
