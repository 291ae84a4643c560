import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { clock } from '../../common/time/clock';
import type { Mode } from '../../database/tenant-owned.entity';
import { unscopedSql } from '../../database/sql';

/** A reminder whose time has come, for whom. */
export interface DueReminder {
  id: string;
  appointmentId: string;
  tenantId: string;
  mode: Mode;
}

/**
 * The sweep's statement. It works across tenants by design (a worker serves every tenant): each row it
 * answers carries its own tenant and mode, which the send job then scopes every query by.
 */
@Injectable()
export class ReminderDueRepository {
  /**
   * Up to `limit` scheduled reminders whose sendAt has come by the clock and that no sweep has leased in
   * the last `leaseMs`, oldest due first, leased for `leaseMs` in the caller's transaction (SKIP LOCKED:
   * concurrent sweeps take different rows).
   */
  async lease(limit: number, leaseMs: number, tx: EntityManager): Promise<DueReminder[]> {
    const now = clock.now();
    // An UPDATE answers [rows, count].
    const [rows] = await unscopedSql<[DueReminder[], number]>(
      tx,
      `UPDATE appointment_reminders SET enqueued_until = $2
        WHERE id IN (SELECT id FROM appointment_reminders
                      WHERE status = 'scheduled' AND send_at <= $1 AND (enqueued_until IS NULL OR enqueued_until <= $1)
                      ORDER BY send_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING id, appointment_id AS "appointmentId", tenant_id AS "tenantId", mode`,
      [now, new Date(now.getTime() + leaseMs), limit],
    );
    return rows;
  }
}
