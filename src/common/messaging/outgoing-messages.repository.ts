import { EntityManager, SelectQueryBuilder } from 'typeorm';
import { PageRequest } from '../http/pagination';
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

/**
 * Messages and the status changes of their sending. Every change is one conditional UPDATE on the status
 * it expects (`updateFromStatus`), so two workers (or two tries of one job, or a worker and a callback)
 * can never both move a message on.
 */
export abstract class OutgoingMessagesRepository<T extends OutgoingMessageEntity> extends TenantEntityRepository<T> {
  /** One page of the scope's messages, newest first; `narrow` adds a subclass's own filters. */
  list(
    scope: TenantScope,
    filters: OutgoingMessageFilters<T['status'], NonNullable<T['transport']>>,
    page: PageRequest,
    narrow?: (query: SelectQueryBuilder<T>) => void,
  ): Promise<Page<T>> {
    const q = this.query(scope, 'm');
    if (filters.patientId) q.andWhere('m.patient_id = :patientId', { patientId: filters.patientId });
    if (filters.status) q.andWhere('m.status = :status', { status: filters.status });
    if (filters.transport) q.andWhere('m.transport = :transport', { transport: filters.transport });
    if (filters.appointmentId) q.andWhere('m.appointment_id = :appointmentId', { appointmentId: filters.appointmentId });
    narrow?.(q);
    return this.paginate(q, page);
  }

  /** Settles a message as failed for good, from either unsettled status. Answers the row when this call settled it. */
  markFailed(scope: TenantScope, id: string, error: string, tx: EntityManager): Promise<T | null> {
    return this.updateFromStatus(scope, id, ['queued', 'sending'], `status = 'failed', last_error = $5`, [lastError(error)], tx);
  }
}
