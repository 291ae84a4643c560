import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, In, Repository } from 'typeorm';
import { PageRequest } from '../../../common/http/lists/pagination';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../../database/tenant-scoped.repository';
import { ProviderEntity } from './entities/provider.entity';

/** How many active providers one availability request without providerId covers. */
export const AVAILABILITY_PROVIDER_LIMIT = 100;

@Injectable()
export class ProvidersRepository extends TenantEntityRepository<ProviderEntity> {
  constructor(@InjectRepository(ProviderEntity) repository: Repository<ProviderEntity>) {
    super(repository);
  }

  list(scope: TenantScope, filters: { isActive?: boolean }, page: PageRequest, tx?: EntityManager): Promise<Page<ProviderEntity>> {
    const q = this.query(scope, 'p', tx);
    if (filters.isActive !== undefined) q.andWhere('p.is_active = :isActive', { isActive: filters.isActive });
    return this.paginate(q, page);
  }

  /** Every active provider (oldest first), for availability across providers. */
  active(scope: TenantScope): Promise<ProviderEntity[]> {
    return this.find(scope, { isActive: true }, { createdAt: 'ASC', id: 'ASC' }, AVAILABILITY_PROVIDER_LIMIT);
  }

  /** The providers with these ids in the scope (those that exist), in the order of `ids`. */
  async byIds(scope: TenantScope, ids: string[], tx?: EntityManager): Promise<ProviderEntity[]> {
    const rows = await this.repo(tx).find({ where: this.scoped(scope, { id: In(ids) }) });
    const byId = new Map(rows.map((p) => [p.id, p]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }
}
