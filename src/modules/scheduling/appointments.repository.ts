import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { TenantScope } from '../../database/tenant-owned.entity';
import { TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { AppointmentEntity } from './entities/appointment.entity';

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
