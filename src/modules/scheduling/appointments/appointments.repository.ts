import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../../common/http/lists/pagination';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { keysetPage, Page, TenantEntityRepository } from '../../../database/tenant-scoped.repository';
import { AppointmentEntity } from './entities/appointment.entity';
import type { ManagedAppointment } from '../self-service/manage-tokens';
import type { AppointmentStatus } from './transitions';

/** The constraints whose violations scheduling answers with its own exceptions. */
export const SchedulingConstraint = {
  ProviderActiveTime: 'EX_APPOINTMENTS_PROVIDER_ACTIVE_TIME',
  /** Appointments' and holds' time together (provider_time_claims). */
  ProviderTimeClaims: 'EX_PROVIDER_TIME_CLAIMS',
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

/** An active appointment's or hold's time, type and that type's buffers (none without a type). */
export interface HeldTime {
  providerId: string;
  startsAt: Date;
  endsAt: Date;
  typeId: string | null;
  bufferBefore: number;
  bufferAfter: number;
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

  /**
   * A page in datetime order: one raw statement, rows as they come (no entity hydration). Each filter is
   * written as its index has it.
   */
  list(scope: TenantScope, filters: AppointmentFilters, page: PageRequest, tx?: EntityManager): Promise<Page<AppointmentEntity>> {
    const params: unknown[] = [];
    const param = (value: unknown): string => `$${params.push(value) + 2}`; // the scope is $1 and $2
    const where: string[] = [];
    if (filters.status) where.push(`status = ${param(filters.status)}`);
    if (filters.providerId) where.push(`provider_id = ${param(filters.providerId)}`);
    if (filters.patientId) where.push(`patient_id = ${param(filters.patientId)}`);
    if (filters.startsFrom) where.push(`starts_at >= ${param(filters.startsFrom)}`);
    if (filters.startsBefore) where.push(`starts_at < ${param(filters.startsBefore)}`);
    if (page.after) where.push(`(starts_at, id) > (${param(page.after.value)}::timestamptz, ${param(page.after.id)}::uuid)`);
    const statement = `SELECT ${this.columns} FROM appointments WHERE tenant_id = $1 AND mode = $2${where.map((w) => ` AND ${w}`).join('')}
      ORDER BY starts_at, id LIMIT ${param(page.limit + 1)}`;
    return this.sql<AppointmentEntity[]>(scope, statement, params, tx).then((rows) => keysetPage(rows, page, (a) => a.startsAt));
  }

  /**
   * The appointment a manage link's id names, or null. The link is the id alone, so this is the one lookup
   * not narrowed to a caller's scope: the row found supplies the tenant and mode for everything after it.
   * One probe of UQ_APPOINTMENTS_MANAGE_ID.
   */
  async findByManageId(manageId: string): Promise<ManagedAppointment | null> {
    const rows = await this.unscopedSql<ManagedAppointment[]>(
      `SELECT tenant_id AS "tenantId", mode, id AS "appointmentId" FROM appointments WHERE manage_id = $1`,
      [manageId],
    );
    return rows[0] ?? null;
  }

  /** The patient's first `scheduled` appointment starting in [from, to], or null. */
  async nextScheduledOfPatient(scope: TenantScope, patientId: string, from: Date, to: Date): Promise<string | null> {
    const rows = await this.sql<{ id: string }[]>(
      scope,
      `SELECT id FROM appointments
        WHERE tenant_id = $1 AND mode = $2 AND patient_id = $3 AND status = 'scheduled' AND starts_at >= $4 AND starts_at <= $5
        ORDER BY starts_at, id LIMIT 1`,
      [patientId, from, to],
    );
    return rows[0]?.id ?? null;
  }

  /**
   * The time these providers have taken in [from, to): their scheduled and confirmed appointments, except
   * `exceptId` (an appointment being rescheduled), and their active holds not expired by `now`, each with
   * its type's current buffers. The appointments' range condition is the exclusion constraint's, so its
   * partial GiST index answers it; the holds' is IDX_HOLDS_TENANT_MODE_PROVIDER_ACTIVE.
   */
  held(
    scope: TenantScope,
    providerIds: string[],
    from: Date,
    to: Date,
    now: Date,
    exceptId?: string,
    tx?: EntityManager,
  ): Promise<HeldTime[]> {
    return this.sql<HeldTime[]>(
      scope,
      `SELECT a.provider_id AS "providerId", a.starts_at AS "startsAt", a.ends_at AS "endsAt", a.appointment_type_id AS "typeId",
              COALESCE(t.buffer_before_minutes, 0) AS "bufferBefore", COALESCE(t.buffer_after_minutes, 0) AS "bufferAfter"
         FROM appointments a
         LEFT JOIN appointment_types t ON t.id = a.appointment_type_id AND t.tenant_id = a.tenant_id AND t.mode = a.mode
        WHERE a.tenant_id = $1 AND a.mode = $2 AND a.provider_id = ANY($3::uuid[])
          AND a.status IN ('scheduled', 'confirmed')
          AND tstzrange(a.starts_at, a.ends_at, '[)') && tstzrange($4, $5, '[)')
          AND a.id IS DISTINCT FROM $6::uuid
       UNION ALL
       SELECT h.provider_id, h.starts_at, h.ends_at, h.appointment_type_id,
              COALESCE(t.buffer_before_minutes, 0), COALESCE(t.buffer_after_minutes, 0)
         FROM holds h
         LEFT JOIN appointment_types t ON t.id = h.appointment_type_id AND t.tenant_id = h.tenant_id AND t.mode = h.mode
        WHERE h.tenant_id = $1 AND h.mode = $2 AND h.provider_id = ANY($3::uuid[])
          AND h.status = 'active' AND h.expires_at > $7
          AND h.starts_at < $5 AND h.ends_at > $4`,
      [providerIds, from, to, exceptId ?? null, now],
      tx,
    );
  }
}
