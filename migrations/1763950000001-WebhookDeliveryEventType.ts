import { MigrationInterface, QueryRunner } from 'typeorm';

/** A delivery carries its event's type, so the delivery log lists without reading the events. */
export class WebhookDeliveryEventType1763950000001 implements MigrationInterface {
  name = 'WebhookDeliveryEventType1763950000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries ADD COLUMN event_type varchar(64) NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhook_deliveries DROP COLUMN event_type`);
  }
}
