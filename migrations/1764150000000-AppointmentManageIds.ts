import { randomBytes } from 'node:crypto';
import { MigrationInterface, QueryRunner } from 'typeorm';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Appointments given their ids per statement. */
const BATCH = 5000;

/** 16 uniform base62 characters (about 95 bits), as src/common/ids.ts randomBase62 makes them; migrations cannot import src/. */
function manageId(): string {
  let id = '';
  while (id.length < 16) for (const byte of randomBytes(20)) if (byte < 248 && id.length < 16) id += BASE62[byte % 62];
  return id;
}

/**
 * A short random id per appointment for its manage link (`/public/appointments/{manage_id}`), so that a
 * reminder text with its link fits one SMS; the signed tokens sent before it stay valid. The link alone names
 * the appointment, in whichever tenant and mode, so the unique index is global: the public routes find the
 * row, and its tenant and mode, with one probe of it. Existing appointments get theirs here, a batch at a time
 * in id order.
 */
export class AppointmentManageIds1764150000000 implements MigrationInterface {
  name = 'AppointmentManageIds1764150000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE appointments ADD COLUMN manage_id varchar(16)`);
    let after = '00000000-0000-0000-0000-000000000000';
    for (;;) {
      const rows = (await q.query(`SELECT id FROM appointments WHERE id > $1 ORDER BY id LIMIT ${BATCH}`, [after])) as { id: string }[];
      if (!rows.length) break;
      const ids = rows.map((r) => r.id);
      await q.query(
        `UPDATE appointments a SET manage_id = v.manage_id FROM unnest($1::uuid[], $2::text[]) AS v(id, manage_id) WHERE a.id = v.id`,
        [ids, ids.map(manageId)],
      );
      after = ids[ids.length - 1];
    }
    await q.query(`ALTER TABLE appointments ALTER COLUMN manage_id SET NOT NULL`);
    await q.query(`CREATE UNIQUE INDEX "UQ_APPOINTMENTS_MANAGE_ID" ON appointments (manage_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE appointments DROP COLUMN manage_id`);
  }
}
