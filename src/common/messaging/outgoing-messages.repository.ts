import { EntityManager, SelectQueryBuilder } from 'typeorm';
import { PageRequest } from '../http/lists/pagination';
import { clock } from '../time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { OutgoingMessageEntity } from './outgoing-message.entity';

/** How much of a transport's error a message keeps (`last_error` is varchar(500)). */
export const lastError = (error: string): string => error.slice(0, 500);

export interface OutgoingMessageFilters<S extends string, T extends string = string> {
  patientId?: string;
  status?: S;
  transport?: T;
  appointmentId?: string;
}

/** A message taken for one try, and the status it was taken from (`sending`: a try that stopped before its answer was recorded). */
export interface ClaimedMessage<T> {
  row: T;
  from: 'queued' | 'sending';
}

/**
 * Messages and the status changes of their sending. Every change is one conditional UPDATE on the status
 * it expects (`updateFromStatus`), so two workers (or two tries of one job, or a worker and a callback)
 * can never both move a message on.
 */
export abstract class OutgoingMessagesRepository<T extends OutgoingMessageEntity> extends TenantEntityRepository<T> {
  /** One page of the scope's messages, newest first. */
  list(
    scope: TenantScope,
    filters: OutgoingMessageFilters<T['status'], NonNullable<T['transport']>>,
    page: PageRequest,
    tx?: EntityManager,
  ): Promise<Page<T>> {
    return this.narrowedList(scope, filters, page, () => undefined, tx);
  }

  /** `list` with a subclass's own filters, which `narrow` adds. */
  protected narrowedList(
    scope: TenantScope,
    filters: OutgoingMessageFilters<T['status'], NonNullable<T['transport']>>,
    page: PageRequest,
    narrow: (query: SelectQueryBuilder<T>) => void,
    tx?: EntityManager,
  ): Promise<Page<T>> {
    const q = this.query(scope, 'm', tx);
    if (filters.patientId) q.andWhere('m.patient_id = :patientId', { patientId: filters.patientId });
    if (filters.status) q.andWhere('m.status = :status', { status: filters.status });
    if (filters.transport) q.andWhere('m.transport = :transport', { transport: filters.transport });
    if (filters.appointmentId) q.andWhere('m.appointment_id = :appointmentId', { appointmentId: filters.appointmentId });
    narrow(q);
    return this.paginate(q, page);
  }

  /** The column that keeps the relay's id of a sent message. */
  protected abstract readonly relayIdColumn: string;

  /**
   * Takes a message for one try: queued → sending, or sending again for the re-run of a job whose worker
   * died mid-try (BullMQ's job lock keeps a live worker's message from being taken over), in one committed
   * statement before the relay is called, so that a row left `sending` names a message whose outcome was
   * never recorded. `set` adds a channel's own columns (parameters from $5). Null when it is settled or gone.
   */
  protected async claimRow(scope: TenantScope, id: string, set = '', params: unknown[] = []): Promise<ClaimedMessage<T> | null> {
    const table = this.repository.metadata.tableName;
    const [rows] = await this.sql<[Record<string, unknown>[], number]>(
      scope,
      // The row is found by its primary key alone, the scope and status checked after: with the statistics of
      // a table that grew from empty (a first burst of sends), a lookup naming tenant, mode and status chose
      // the status index and read every queued row per claim (bench/README.md, SMS sending).
      `UPDATE ${table} m SET status = 'sending', attempts = m.attempts + 1, updated_at = $4${set ? `, ${set}` : ''}
         FROM (SELECT id, tenant_id, mode, status FROM ${table} WHERE id = $3 FOR UPDATE) old
        WHERE m.id = old.id AND old.tenant_id = $1 AND old.mode = $2 AND old.status IN ('queued', 'sending')
        RETURNING m.*, old.status AS claimed_from`,
      [id, clock.now(), ...params],
    );
    const raw = rows[0];
    return raw ? { row: this.fromRow(raw), from: raw.claimed_from as 'queued' | 'sending' } : null;
  }

  /** Settles a claimed message as sent through `transport`; the row when this call settled it. */
  markSent(scope: TenantScope, id: string, transport: string, relayId: string | null, tx: EntityManager): Promise<T | null> {
    return this.updateFromStatus(
      scope,
      id,
      ['sending'],
      `status = 'sent', transport = $5, ${this.relayIdColumn} = $6, last_error = NULL, sent_at = $7`,
      [transport, relayId, clock.now()],
      tx,
    );
  }

  /** The recipient opted out before the message went: it is not sent (again). `reason` is its lastError. */
  markSuppressed(scope: TenantScope, id: string, reason: string, tx: EntityManager): Promise<T | null> {
    return this.updateFromStatus(scope, id, ['queued', 'sending'], `status = 'suppressed', last_error = $5`, [reason], tx);
  }

  /**
   * A try that did not deliver and may be repeated: `sending` goes back to `queued` with the error kept (the
   * claim counted the try) and `nextAttemptAt`, when its retry is due. `set` adds a channel's own columns.
   */
  protected async retryRow(scope: TenantScope, id: string, error: string, nextAttemptAt: Date, set = ''): Promise<void> {
    await this.updateFromStatus(
      scope,
      id,
      ['sending'],
      `status = 'queued', last_error = $5, next_attempt_at = $6${set ? `, ${set}` : ''}`,
      [lastError(error), nextAttemptAt],
    );
  }

  markRetry(scope: TenantScope, id: string, error: string, nextAttemptAt: Date): Promise<void> {
    return this.retryRow(scope, id, error, nextAttemptAt);
  }

  /** Settles a message as failed for good, from either unsettled status. Answers the row when this call settled it. */
  markFailed(scope: TenantScope, id: string, error: string, tx: EntityManager): Promise<T | null> {
    return this.updateFromStatus(scope, id, ['queued', 'sending'], `status = 'failed', last_error = $5`, [lastError(error)], tx);
  }
}
