import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/pagination';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { TenantEntity } from '../tenants/entities/tenant.entity';
import { ApiKeyEntity } from './entities/api-key.entity';

export interface KeyWithTenant {
  key: ApiKeyEntity;
  tenantName: string;
}

@Injectable()
export class ApiKeysRepository extends TenantEntityRepository<ApiKeyEntity> {
  constructor(@InjectRepository(ApiKeyEntity) repository: Repository<ApiKeyEntity>) {
    super(repository);
  }

  /**
   * The one lookup that is not tenant-scoped: authentication, which is how the tenant becomes known.
   * One indexed query by the key's hash, joined to its tenant.
   */
  async findForAuthentication(keyHash: string): Promise<KeyWithTenant | null> {
    const row = await this.repository
      .createQueryBuilder('k')
      .innerJoin(TenantEntity, 't', 't.id = k.tenant_id')
      .addSelect('t.name', 'tenant_name')
      .where('k.key_hash = :keyHash', { keyHash })
      .getRawAndEntities();
    const key = row.entities[0];
    return key ? { key, tenantName: String((row.raw[0] as { tenant_name: string }).tenant_name) } : null;
  }

  list(scope: TenantScope, page: PageRequest, tx?: EntityManager): Promise<Page<ApiKeyEntity>> {
    return this.paginate(this.query(scope, 'k', tx), page);
  }

  async revoke(scope: TenantScope, id: string, at: Date, tx?: EntityManager): Promise<boolean> {
    return (await this.update(scope, { id, revokedAt: IsNull() }, { revokedAt: at, updatedAt: at }, tx)) > 0;
  }

  /**
   * Writes buffered last-use times in one statement; never moves a time backwards. Not tenant-scoped: the
   * authenticator flushes the keys of every tenant it served, by the ids it verified.
   */
  async recordLastUse(uses: Map<string, Date>): Promise<void> {
    if (uses.size === 0) return;
    const ids = [...uses.keys()];
    const times = ids.map((id) => uses.get(id)!.toISOString());
    await this.repository.query(
      `UPDATE api_keys k SET last_used_at = u.at
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at)
        WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
      [ids, times],
    );
  }
}
