import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { TenantScopedRepository } from '../../database/tenant-scoped.repository';
import { SmsNumberEntity } from './entities/sms-number.entity';

@Injectable()
export class SmsNumbersRepository extends TenantScopedRepository<SmsNumberEntity> {
  constructor(@InjectRepository(SmsNumberEntity) repository: Repository<SmsNumberEntity>) {
    super(repository);
  }

  /** Sets the scope's number; an unchanged one is left as it was. Fails on UQ_SMS_NUMBERS_NUMBER_MODE when another tenant holds it. */
  async upsert(scope: TenantScope, number: string): Promise<void> {
    await this.sql(
      scope,
      `INSERT INTO sms_numbers (tenant_id, mode, number, assigned_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tenant_id, mode) DO UPDATE SET number = EXCLUDED.number, assigned_at = EXCLUDED.assigned_at
        WHERE sms_numbers.number IS DISTINCT FROM EXCLUDED.number`,
      [number, clock.now()],
    );
  }

  /** Removes the scope's number, answering it (null when it had none). */
  async remove(scope: TenantScope): Promise<string | null> {
    const [rows] = await this.sql<[{ number: string }[], number]>(
      scope,
      `DELETE FROM sms_numbers WHERE tenant_id = $1 AND mode = $2 RETURNING number`,
    );
    return rows[0]?.number ?? null;
  }

  /**
   * Every tenant's assignments of `number` (or all, for the operator's list): the provider's callbacks name a
   * number, never a tenant, so this is the one unscoped read.
   */
  holders(where: { number?: string; tenantId?: string }): Promise<SmsNumberEntity[]> {
    return this.repository.find({ where, order: { tenantId: 'ASC', mode: 'ASC' } });
  }
}
