import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Booking notices.
 *
 * - appointment_types gain which changes tell the patient (`notice_booked`, `notice_rescheduled`,
 *   `notice_cancelled`, each on by default), by which channels (`notice_channels`, email by default) and with
 *   which email templates (`notice_templates`, none: the built-in text). Existing types take the defaults.
 * - email_messages gain `attachments` (a notice's .ics), stored as queued so that every try sends the same
 *   message, and cleared with the bodies by retention. The `booking_notice` kind is already allowed by the
 *   kind checks of both message tables.
 */
export class BookingNotices1764180300000 implements MigrationInterface {
  name = 'BookingNotices1764180300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE appointment_types
         ADD COLUMN notice_booked boolean NOT NULL DEFAULT true,
         ADD COLUMN notice_rescheduled boolean NOT NULL DEFAULT true,
         ADD COLUMN notice_cancelled boolean NOT NULL DEFAULT true,
         ADD COLUMN notice_channels jsonb NOT NULL DEFAULT '["email"]',
         ADD COLUMN notice_templates jsonb NOT NULL DEFAULT '{}'`,
    );
    await q.query(`ALTER TABLE email_messages ADD COLUMN attachments jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE email_messages DROP COLUMN attachments`);
    await q.query(
      `ALTER TABLE appointment_types DROP COLUMN notice_booked, DROP COLUMN notice_rescheduled, DROP COLUMN notice_cancelled,
         DROP COLUMN notice_channels, DROP COLUMN notice_templates`,
    );
  }
}
