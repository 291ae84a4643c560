import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/lists/pagination';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { SchedulerEntity } from './entities/scheduler.entity';

/** The writable columns of a scheduler. */
export interface SchedulerValues {
  name: string;
  slug: string;
  description: string | null;
  providerIds: string[];
  duration: number | null;
  type: string | null;
  appointmentTypeId: string | null;
  isActive: boolean;
  requirePhone: boolean;
}

export const SchedulerConstraint = {
  Slug: 'UQ_SCHEDULERS_TENANT_MODE_SLUG',
} as const;

const COLUMNS = `id, tenant_id AS "tenantId", mode, name, slug, description, provider_ids AS "providerIds", duration, type,
  appointment_type_id AS "appointmentTypeId",
  is_active AS "isActive", require_phone AS "requirePhone", views_count AS "viewsCount", bookings_count AS "bookingsCount", created_at AS "createdAt", updated_at AS "updatedAt"`;

@Injectable()
export class BookingPagesRepository extends TenantEntityRepository<SchedulerEntity> {
  constructor(@InjectRepository(SchedulerEntity) repository: Repository<SchedulerEntity>) {
    super(repository);
  }

  create(scope: TenantScope, values: SchedulerValues, tx?: EntityManager): Promise<SchedulerEntity> {
    return this.insert(scope, { ...values, viewsCount: 0, bookingsCount: 0 }, tx);
  }

  /** Applies a patch (absent members unchanged) and answers the new row; null when the id names nothing. */
  async applyPatch(scope: TenantScope, id: string, patch: Partial<SchedulerValues>, tx?: EntityManager): Promise<SchedulerEntity | null> {
    const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
    const changed = await this.update(scope, { id }, { ...set, updatedAt: clock.now() }, tx);
    return changed ? this.findById(scope, id, tx) : null;
  }

  list(scope: TenantScope, filters: { isActive?: boolean }, page: PageRequest, tx?: EntityManager): Promise<Page<SchedulerEntity>> {
    const q = this.query(scope, 's', tx);
    if (filters.isActive !== undefined) q.andWhere('s.is_active = :isActive', { isActive: filters.isActive });
    return this.paginate(q, page);
  }

  /**
   * A public page view: counts it and answers the active scheduler, in one statement (the row lock makes
   * concurrent views add up exactly). The public address is the id alone, so this is the one lookup not
   * narrowed to a caller's scope: the row found supplies the tenant and mode for everything after it.
   * Null when no active scheduler has this id.
   */
  async countPublicView(id: string): Promise<SchedulerEntity | null> {
    const [rows] = await this.unscopedSql<[SchedulerEntity[], number]>(
      `UPDATE schedulers SET views_count = views_count + 1 WHERE id = $1 AND is_active RETURNING ${COLUMNS}`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** The active scheduler with this public id (see countPublicView), without counting anything. */
  async findPublic(id: string): Promise<SchedulerEntity | null> {
    const rows = await this.unscopedSql<SchedulerEntity[]>(`SELECT ${COLUMNS} FROM schedulers WHERE id = $1 AND is_active`, [id]);
    return rows[0] ?? null;
  }

  /**
   * Counts a public booking in one statement, in the booking's transaction. False when the scheduler was
   * deactivated meanwhile (the booking then rolls back).
   */
  countBooking(scope: TenantScope, id: string, tx: EntityManager): Promise<boolean> {
    return this.incrementIfActive(scope, id, 'bookings_count', tx);
  }
}
