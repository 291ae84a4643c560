import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/pagination';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { pageAscending } from './ascending-page';
import { AppointmentEntity } from './entities/appointment.entity';
import type { AppointmentStatus } from './transitions';

/** The constraints whose violations scheduling answers with its own exceptions. */
export const SchedulingConstraint = {
  ProviderActiveTime: 'EX_APPOINTMENTS_PROVIDER_ACTIVE_TIME',
} as const;

/** The first key of the advisory locks that take turns at a provider's schedule (the second is the provider's hash). */
const PROVIDER_SCHEDULE_LOCK = 1_094_861_636;

export interface AppointmentFilters {
  status?: AppointmentStatus;
  providerId?: string;
  patientId?: string;
  startsFrom?: Date;
  startsBefore?: Date;
}

/** The time an active appointment holds. */
export interface HeldTime {
  providerId: string;
  startsAt: Date;
  endsAt: Date;
}

@Injectable()
export class AppointmentsRepository extends TenantEntityRepository<AppointmentEntity> {
  constructor(@InjectRepository(AppointmentEntity) repository: Repository<AppointmentEntity>) {
    super(repository);
  }

  /**
   * Makes the transaction wait its turn at the provider's schedule, until it ends. Every change that can
   * make an appointment hold time takes it before writing, so that of racing writes to one slot the
   * later ones meet the first's committed row (a plain 23P01 from the exclusion constraint) instead of
   * its uncommitted one. Checked against each other's uncommitted rows, racing writes wait for each other
   * and deadlock (40P01), and on a starved CPU they do so round after round, past retryOnDeadlock's
   * attempts (bench/README.md, Scheduling).
   */
  async lockProviderSchedule(scope: TenantScope, providerId: string, tx: EntityManager): Promise<void> {
    await this.sql(
      scope,
      `SELECT pg_advisory_xact_lock(${PROVIDER_SCHEDULE_LOCK}, hashtext($1::text || '/' || $2::text || '/' || $3::text))`,
      [providerId],
      tx,
    );
  }

  /** A page in datetime order. */
  list(scope: TenantScope, filters: AppointmentFilters, page: PageRequest): Promise<Page<AppointmentEntity>> {
    const q = this.query(scope, 'a');
    if (filters.status) q.andWhere('a.status = :status', { status: filters.status });
    if (filters.providerId) q.andWhere('a.provider_id = :providerId', { providerId: filters.providerId });
    if (filters.patientId) q.andWhere('a.patient_id = :patientId', { patientId: filters.patientId });
    if (filters.startsFrom) q.andWhere('a.starts_at >= :startsFrom', { startsFrom: filters.startsFrom });
    if (filters.startsBefore) q.andWhere('a.starts_at < :startsBefore', { startsBefore: filters.startsBefore });
    return pageAscending(q, 'starts_at', (a) => a.startsAt, page);
  }

  /**
   * Scheduled and confirmed appointments of these providers overlapping [from, to), except `exceptId`
   * (an appointment being rescheduled). The range condition is the exclusion constraint's, so its
   * partial GiST index answers it.
   */
  held(scope: TenantScope, providerIds: string[], from: Date, to: Date, exceptId?: string, tx?: EntityManager): Promise<HeldTime[]> {
    return this.sql<HeldTime[]>(
      scope,
      `SELECT provider_id AS "providerId", starts_at AS "startsAt", ends_at AS "endsAt" FROM appointments
        WHERE tenant_id = $1 AND mode = $2 AND provider_id = ANY($3::uuid[])
          AND status IN ('scheduled', 'confirmed')
          AND tstzrange(starts_at, ends_at, '[)') && tstzrange($4, $5, '[)')
          AND id IS DISTINCT FROM $6::uuid`,
      [providerIds, from, to, exceptId ?? null],
      tx,
    );
  }
}
