import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/lists/pagination';
import { TimeRange } from '../../common/http/lists/time-range';
import { isPrepared, prepared } from '../../database/sql';
import { TenantScope } from '../../database/tenant-owned.entity';
import { newestFirstPage, Page, ScopedStatement, TenantScopedRepository } from '../../database/tenant-scoped.repository';
import { EventEntity } from './entities/event.entity';

export interface NewEvent {
  id: string;
  type: string;
  payload: object;
  createdAt: Date;
}

@Injectable()
export class EventsRepository extends TenantScopedRepository<EventEntity> {
  constructor(@InjectRepository(EventEntity) repository: Repository<EventEntity>) {
    super(repository);
  }

  /**
   * Runs `write` (a data-modifying statement: $1 tenant, $2 mode, then its own parameters) and records
   * `event` in the same statement: one round trip, atomic without a transaction, and the event is written
   * only when the statement wrote a row.
   */
  async insertWith(scope: TenantScope, write: ScopedStatement, event: NewEvent, tx?: EntityManager): Promise<void> {
    const n = write.params.length + 2;
    const statement = `WITH written AS (${write.statement} RETURNING 1)
       INSERT INTO events (id, tenant_id, mode, type, payload, created_at)
       SELECT $${n + 1}::uuid, $1, $2, $${n + 2}, $${n + 3}::jsonb, $${n + 4}::timestamptz FROM written`;
    // A hot write stays hot with its event.
    await this.sql(
      scope,
      isPrepared(write.statement) ? prepared(statement) : statement,
      [...write.params, event.id, event.type, JSON.stringify(event.payload), event.createdAt],
      tx,
    );
  }

  /** Inserts events of one scope in one statement, inside the caller's transaction. */
  async insertMany(scope: TenantScope, events: NewEvent[], dispatched: boolean, tx: EntityManager): Promise<void> {
    if (!events.length) return;
    await this.sql(
      scope,
      `INSERT INTO events (id, tenant_id, mode, type, payload, created_at, dispatched_at)
       SELECT e.id, $1, $2, e.type, e.payload, e.created_at, CASE WHEN $4 THEN e.created_at END
         FROM jsonb_to_recordset($3::jsonb) AS e(id uuid, type text, payload jsonb, created_at timestamptz)`,
      [JSON.stringify(events.map((e) => ({ id: e.id, type: e.type, payload: e.payload, created_at: e.createdAt }))), dispatched],
      tx,
    );
  }

  list(scope: TenantScope, filters: { type?: string } & TimeRange, page: PageRequest, tx?: EntityManager): Promise<Page<EventEntity>> {
    const q = this.query(scope, 'e', tx);
    if (filters.type) q.andWhere('e.type = :type', { type: filters.type });
    if (filters.from) q.andWhere('e.created_at >= :from', { from: filters.from });
    if (filters.to) q.andWhere('e.created_at <= :to', { to: filters.to });
    return newestFirstPage(q, page, 'created_at', (e) => e.createdAt);
  }
}
