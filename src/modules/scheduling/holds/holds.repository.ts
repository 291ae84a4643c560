import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { clock } from '../../../common/time/clock';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { TenantEntityRepository } from '../../../database/tenant-scoped.repository';
import { HoldEntity, HoldStatus } from './entities/hold.entity';

@Injectable()
export class HoldsRepository extends TenantEntityRepository<HoldEntity> {
  constructor(@InjectRepository(HoldEntity) repository: Repository<HoldEntity>) {
    super(repository);
  }

  /** Moves an active hold on to `status` (its claim goes with it, by trigger); null when it was not active. */
  settle(
    scope: TenantScope,
    id: string,
    status: Exclude<HoldStatus, 'active'>,
    tx?: EntityManager,
    appointmentId: string | null = null,
  ): Promise<HoldEntity | null> {
    return this.updateFromStatus(scope, id, ['active'], `status = $5, appointment_id = $6`, [status, appointmentId], tx);
  }

  /** Expires the hold if it is active and its time `now` has come; answers whether it did. */
  async expireIfDue(scope: TenantScope, id: string, now: Date, tx?: EntityManager): Promise<boolean> {
    const [, count] = await this.sql<[unknown[], number]>(
      scope,
      `UPDATE holds SET status = 'expired', updated_at = $5
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status = 'active' AND expires_at <= $4`,
      [id, now, clock.now()],
      tx,
    );
    return count > 0;
  }

  /**
   * Expires the provider's active holds whose time has come by `now`, so that a booking or hold meeting one
   * of them in the claims takes the time at once instead of waiting for the hold's job.
   */
  async expireLapsed(scope: TenantScope, providerId: string, now: Date, tx: EntityManager): Promise<void> {
    await this.sql(
      scope,
      `UPDATE holds SET status = 'expired', updated_at = $5
        WHERE tenant_id = $1 AND mode = $2 AND provider_id = $3 AND status = 'active' AND expires_at <= $4`,
      [providerId, now, clock.now()],
      tx,
    );
  }
}
