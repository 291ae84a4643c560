import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../../common/http/lists/pagination';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../../database/tenant-scoped.repository';
import type { AppointmentStatus } from '../appointments/transitions';
import { AppointmentSeriesEntity } from './entities/appointment-series.entity';

/** An occurrence's appointment as a series shows it: where it is now and in what state. */
export interface OccurrenceRow {
  id: string;
  seriesId: string;
  providerId: string;
  startsAt: Date;
  /** Minutes. */
  duration: number;
  status: AppointmentStatus;
}

@Injectable()
export class SeriesRepository extends TenantEntityRepository<AppointmentSeriesEntity> {
  constructor(@InjectRepository(AppointmentSeriesEntity) repository: Repository<AppointmentSeriesEntity>) {
    super(repository);
  }

  list(
    scope: TenantScope,
    filters: { patientId?: string; providerId?: string },
    page: PageRequest,
    tx?: EntityManager,
  ): Promise<Page<AppointmentSeriesEntity>> {
    const q = this.query(scope, 's', tx);
    if (filters.patientId) q.andWhere('s.patient_id = :patientId', { patientId: filters.patientId });
    if (filters.providerId) q.andWhere('s.provider_id = :providerId', { providerId: filters.providerId });
    return this.paginate(q, page);
  }

  /** The appointments of these series, by IDX_APPOINTMENTS_TENANT_MODE_SERIES. */
  appointmentsOf(scope: TenantScope, seriesIds: string[], tx?: EntityManager): Promise<OccurrenceRow[]> {
    return this.sql<OccurrenceRow[]>(
      scope,
      `SELECT id, series_id AS "seriesId", provider_id AS "providerId", starts_at AS "startsAt", duration, status FROM appointments
        WHERE tenant_id = $1 AND mode = $2 AND series_id = ANY($3::uuid[]) ORDER BY starts_at, id`,
      [seriesIds],
      tx,
    );
  }

  /**
   * Locks the series' appointments in start order before an edit changes them one by one: an edit of a single
   * occurrence locks its row before the provider's schedule, as this does, so the two cannot deadlock.
   */
  async lockAppointmentsOf(scope: TenantScope, seriesId: string, tx: EntityManager): Promise<void> {
    await this.sql(
      scope,
      `SELECT id FROM appointments WHERE tenant_id = $1 AND mode = $2 AND series_id = $3 ORDER BY starts_at, id FOR UPDATE`,
      [seriesId],
      tx,
    );
  }
}
