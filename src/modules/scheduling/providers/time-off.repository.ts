import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../../common/http/lists/pagination';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../../database/tenant-scoped.repository';
import { pageAscending } from './ascending-page';
import { TimeOffEntity } from './entities/time-off.entity';

@Injectable()
export class TimeOffRepository extends TenantEntityRepository<TimeOffEntity> {
  constructor(@InjectRepository(TimeOffEntity) repository: Repository<TimeOffEntity>) {
    super(repository);
  }

  /** One provider's time off, by start ascending. */
  ofProvider(scope: TenantScope, providerId: string, page: PageRequest, tx?: EntityManager): Promise<Page<TimeOffEntity>> {
    const q = this.query(scope, 't', tx).andWhere('t.provider_id = :providerId', { providerId });
    return pageAscending(q, 'start_at', (r) => r.startAt, page);
  }

  /** Time off of these providers overlapping [from, to). */
  overlapping(scope: TenantScope, providerIds: string[], from: Date, to: Date, tx?: EntityManager): Promise<TimeOffEntity[]> {
    return this.query(scope, 't', tx)
      .andWhere('t.provider_id = ANY(:providerIds::uuid[])', { providerIds })
      .andWhere('t.start_at < :to AND t.end_at > :from', { from, to })
      .getMany();
  }
}
