import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PageRequest } from '../../common/http/pagination';
import { TimeRange } from '../../common/http/time-range';
import { TenantScope } from '../../database/tenant-owned.entity';
import { newestFirstPage, Page, TenantScopedRepository } from '../../database/tenant-scoped.repository';
import { AuditEntryEntity } from './entities/audit-entry.entity';

export interface AuditFilters extends TimeRange {
  resourceId?: string;
  resourceType?: string;
  apiKeyId?: string;
  action?: string;
}

@Injectable()
export class AuditRepository extends TenantScopedRepository<AuditEntryEntity> {
  constructor(@InjectRepository(AuditEntryEntity) repository: Repository<AuditEntryEntity>) {
    super(repository);
  }

  list(scope: TenantScope, filters: AuditFilters, page: PageRequest): Promise<Page<AuditEntryEntity>> {
    const q = this.query(scope, 'a');
    if (filters.resourceId) q.andWhere('a.resource_id = :resourceId', { resourceId: filters.resourceId });
    if (filters.resourceType) q.andWhere('a.resource_type = :resourceType', { resourceType: filters.resourceType });
    if (filters.apiKeyId) q.andWhere('a.api_key_id = :apiKeyId', { apiKeyId: filters.apiKeyId });
    if (filters.action) q.andWhere('a.action = :action', { action: filters.action });
    if (filters.from) q.andWhere('a.at >= :from', { from: filters.from });
    if (filters.to) q.andWhere('a.at <= :to', { to: filters.to });
    return newestFirstPage(q, page, 'at', (a) => a.at);
  }
}
