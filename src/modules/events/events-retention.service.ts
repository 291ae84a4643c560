import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { unscopedSql } from '../../database/sql';

/**
 * Deletes events past EVENTS_RETENTION_DAYS, across tenants (a worker serves every tenant): their webhook
 * deliveries and delivery attempts go with them (ON DELETE CASCADE). Each batch is locked with SKIP LOCKED,
 * so several workers sweeping at once delete different events and never wait on one another.
 */
@Injectable()
export class EventsRetention {
  constructor(private readonly dataSource: DataSource) {}

  /** Deletes up to `limit` events created before `cutoff`; answers how many. */
  async deleteCreatedBefore(cutoff: Date, limit: number): Promise<number> {
    const [, deleted] = await unscopedSql<[unknown, number]>(
      this.dataSource,
      `DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [cutoff, limit],
    );
    return deleted;
  }
}
