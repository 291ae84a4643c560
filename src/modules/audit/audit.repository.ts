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

  /**
   * Writes a batch of entries of any tenants in one statement. The writer buffers requests of every
   * tenant together; each entry carries its own tenant and mode, taken from the request's verified key.
   */
  async insertBatch(entries: AuditEntryEntity[]): Promise<void> {
    if (!entries.length) return;
    const column = <K extends keyof AuditEntryEntity>(key: K): AuditEntryEntity[K][] => entries.map((e) => e[key]);
    await this.repository.manager.query(
      `INSERT INTO audit_log (id, tenant_id, mode, at, api_key_id, action, resource_type, resource_id, status, request_id, ip)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::varchar[], $4::timestamptz[], $5::uuid[], $6::varchar[], $7::varchar[],
                            $8::varchar[], $9::smallint[], $10::varchar[], $11::varchar[])`,
      [
        column('id'),
        column('tenantId'),
        column('mode'),
        column('at'),
        column('apiKeyId'),
        column('action'),
        column('resourceType'),
        column('resourceId'),
        column('status'),
        column('requestId'),
        column('ip'),
      ],
    );
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
