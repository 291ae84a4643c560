import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { PageRequest } from '../../../common/http/lists/pagination';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../../database/tenant-scoped.repository';
import { WaitlistEntryEntity, WaitlistEntryStatus } from './entities/waitlist-entry.entity';
import { WaitlistOfferEntity, WaitlistOfferStatus } from './entities/waitlist-offer.entity';

export interface WaitlistFilters {
  status?: WaitlistEntryStatus;
  patientId?: string;
  appointmentTypeId?: string;
}

/** How many of the oldest waiting entries a freeing looks through. */
const CANDIDATES = 500;

@Injectable()
export class WaitlistEntriesRepository extends TenantEntityRepository<WaitlistEntryEntity> {
  constructor(@InjectRepository(WaitlistEntryEntity) repository: Repository<WaitlistEntryEntity>) {
    super(repository);
  }

  list(scope: TenantScope, filters: WaitlistFilters, page: PageRequest, tx?: EntityManager): Promise<Page<WaitlistEntryEntity>> {
    const q = this.query(scope, 'e', tx);
    if (filters.status) q.andWhere('e.status = :status', { status: filters.status });
    if (filters.patientId) q.andWhere('e.patient_id = :patientId', { patientId: filters.patientId });
    if (filters.appointmentTypeId) q.andWhere('e.appointment_type_id = :typeId', { typeId: filters.appointmentTypeId });
    return this.paginate(q, page);
  }

  /** The patient's waiting (or offered) entry for the type, if any. */
  findActive(scope: TenantScope, patientId: string, appointmentTypeId: string, tx?: EntityManager): Promise<WaitlistEntryEntity | null> {
    return this.findOne(scope, { patientId, appointmentTypeId, status: In(['waiting', 'offered']) }, tx);
  }

  /** The oldest waiting entries that may take a slot of this provider (theirs, or any of their type's). */
  waitingFor(scope: TenantScope, providerId: string, tx: EntityManager): Promise<WaitlistEntryEntity[]> {
    return this.query(scope, 'e', tx)
      .andWhere(`e.status = 'waiting'`)
      .andWhere(`(cardinality(e.provider_ids) = 0 OR :providerId = ANY(e.provider_ids))`, { providerId })
      .orderBy('e.created_at', 'ASC')
      .addOrderBy('e.id', 'ASC')
      .take(CANDIDATES)
      .getMany();
  }

  /** Moves the entry from one of `from` to `status`; false when it was in none of them. */
  async move(
    scope: TenantScope,
    id: string,
    from: WaitlistEntryStatus[],
    status: WaitlistEntryStatus,
    tx: EntityManager,
  ): Promise<boolean> {
    return (await this.updateFromStatus(scope, id, from, `status = $5`, [status], tx)) !== null;
  }
}

@Injectable()
export class WaitlistOffersRepository extends TenantEntityRepository<WaitlistOfferEntity> {
  constructor(@InjectRepository(WaitlistOfferEntity) repository: Repository<WaitlistOfferEntity>) {
    super(repository);
  }

  /** The entries' offers, oldest first, by entry. */
  async ofEntries(scope: TenantScope, entryIds: string[], tx?: EntityManager): Promise<Map<string, WaitlistOfferEntity[]>> {
    const byEntry = new Map<string, WaitlistOfferEntity[]>(entryIds.map((id) => [id, []]));
    if (!entryIds.length) return byEntry;
    const rows = await this.find(scope, { entryId: In(entryIds) }, { createdAt: 'ASC', id: 'ASC' }, undefined, tx);
    for (const row of rows) byEntry.get(row.entryId)?.push(row);
    return byEntry;
  }

  findByFreeing(scope: TenantScope, freeingId: string, tx: EntityManager): Promise<WaitlistOfferEntity | null> {
    return this.findOne(scope, { freeingId }, tx);
  }

  /** The offer a link's token names, in whichever tenant and mode it is (the token is unique across them). */
  async findByToken(token: string): Promise<WaitlistOfferEntity | null> {
    const [row] = await this.unscopedSql<Record<string, unknown>[]>(`SELECT * FROM waitlist_offers WHERE token = $1`, [token]);
    return row ? this.fromRow(row) : null;
  }

  /** Moves a pending offer on to `status`; null when it was not pending. */
  settle(
    scope: TenantScope,
    id: string,
    status: Exclude<WaitlistOfferStatus, 'pending'>,
    tx: EntityManager,
    appointmentId: string | null = null,
  ): Promise<WaitlistOfferEntity | null> {
    return this.updateFromStatus(scope, id, ['pending'], `status = $5, appointment_id = $6`, [status, appointmentId], tx);
  }

  /** The entry's pending offer, if any. */
  pendingOf(scope: TenantScope, entryId: string, tx: EntityManager): Promise<WaitlistOfferEntity | null> {
    return this.findOne(scope, { entryId, status: 'pending' }, tx);
  }
}
