import { Injectable } from '@nestjs/common';
import { uuidv7 } from '../../common/ids';
import { EntityManager } from 'typeorm';
import { clock } from '../../common/time/clock';
import type { Mode } from '../../database/tenant-owned.entity';
import { unscopedSql } from '../../database/sql';

/** A delivery that needs a job: which one, for whom, and which attempt comes next. */
export interface DueDelivery {
  id: string;
  tenantId: string;
  mode: Mode;
  attemptCount: number;
}

/**
 * The relay's statements. They work across tenants by design (a worker serves every tenant): each row
 * read carries its own tenant and mode, and every row written copies them from the event it comes from;
 * a delivery is only ever created for an endpoint of the event's own tenant and mode (the join below).
 */
@Injectable()
export class OutboxRelayRepository {
  /**
   * Fans up to `limit` committed, undispatched events out into deliveries, one per subscribed enabled
   * endpoint, and marks them dispatched. Runs in the caller's transaction (`Transactions.run`), which
   * holds the events' row locks until it commits: FOR UPDATE SKIP LOCKED hands each event to one relay;
   * the unique (event, endpoint) index makes a second delivery impossible anyway.
   */
  async dispatch(limit: number, maxAttempts: number, tx: EntityManager): Promise<{ events: number; deliveries: DueDelivery[] }> {
    const events = await unscopedSql<{ id: string }[]>(
      tx,
      `SELECT id FROM events WHERE dispatched_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
    if (!events.length) return { events: 0, deliveries: [] };
    const ids = events.map((e) => e.id);
    const deliveries = await this.createDeliveries(tx, ids, maxAttempts);
    await unscopedSql(tx, `UPDATE events SET dispatched_at = $2 WHERE id = ANY($1::uuid[])`, [ids, clock.now()]);
    return { events: events.length, deliveries };
  }

  private async createDeliveries(tx: EntityManager, eventIds: string[], maxAttempts: number): Promise<DueDelivery[]> {
    const targets = await unscopedSql<{ eventId: string; endpointId: string; type: string; tenantId: string; mode: Mode }[]>(
      tx,
      `SELECT e.id AS "eventId", ep.id AS "endpointId", e.type, e.tenant_id AS "tenantId", e.mode
         FROM events e
         JOIN webhook_endpoints ep ON ep.tenant_id = e.tenant_id AND ep.mode = e.mode AND ep.enabled AND e.type = ANY(ep.events)
        WHERE e.id = ANY($1::uuid[])
        ORDER BY e.id, ep.id`,
      [eventIds],
    );
    if (!targets.length) return [];
    const rows = targets.map((t) => ({ id: uuidv7(), ...t }));
    return unscopedSql<DueDelivery[]>(
      tx,
      `INSERT INTO webhook_deliveries (id, tenant_id, mode, endpoint_id, event_id, event_type, status, attempt_count, max_attempts,
                                       next_attempt_at, created_at, updated_at)
       SELECT r.id, r.tenant_id, r.mode, r.endpoint_id, r.event_id, r.type, 'pending', 0, $2, $3, $3, $3
         FROM jsonb_to_recordset($1::jsonb) AS r(id uuid, tenant_id uuid, mode text, endpoint_id uuid, event_id uuid, type text)
       ON CONFLICT (event_id, endpoint_id) DO NOTHING
       RETURNING id, tenant_id AS "tenantId", mode, attempt_count AS "attemptCount"`,
      [
        JSON.stringify(
          rows.map((r) => ({
            id: r.id,
            tenant_id: r.tenantId,
            mode: r.mode,
            endpoint_id: r.endpointId,
            event_id: r.eventId,
            type: r.type,
          })),
        ),
        maxAttempts,
        clock.now(),
      ],
    );
  }
}
