import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/lists/pagination';
import { TimeRange } from '../../common/http/lists/time-range';
import { TenantScope } from '../../database/tenant-owned.entity';
import { keysetPage, newestFirstPage, Page, TenantScopedRepository } from '../../database/tenant-scoped.repository';
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

  list(scope: TenantScope, filters: AuditFilters, page: PageRequest, tx?: EntityManager): Promise<Page<AuditEntryEntity>> {
    const q = this.query(scope, 'a', tx);
    if (filters.resourceId) q.andWhere('a.resource_id = :resourceId', { resourceId: filters.resourceId });
    if (filters.resourceType) q.andWhere('a.resource_type = :resourceType', { resourceType: filters.resourceType });
    if (filters.apiKeyId) q.andWhere('a.api_key_id = :apiKeyId', { apiKeyId: filters.apiKeyId });
    if (filters.action) q.andWhere('a.action = :action', { action: filters.action });
    if (filters.from) q.andWhere('a.at >= :from', { from: filters.from });
    if (filters.to) q.andWhere('a.at <= :to', { to: filters.to });
    return newestFirstPage(q, page, 'at', (a) => a.at);
  }

  /**
   * The audit entries whose answers carried `patientId`, newest first: a keyset page of the patient's
   * audit_log_patients rows (their primary key's order), each joined to its entry by the entry's key.
   */
  async patientAccesses(scope: TenantScope, patientId: string, page: PageRequest, tx?: EntityManager): Promise<Page<AuditEntryEntity>> {
    // Two statements rather than one with an optional cursor, so that each plan seeks the key to its first row.
    const after = page.after ? `AND (p.at, p.audit_id) < ($5::timestamptz, $6::uuid)` : '';
    const rows = await this.sql<AuditEntryEntity[]>(
      scope,
      `SELECT a.id, a.at, a.api_key_id AS "apiKeyId", a.action, a.request_id AS "requestId", a.ip
         FROM audit_log_patients p
         JOIN audit_log a ON a.tenant_id = p.tenant_id AND a.mode = p.mode AND a.at = p.at AND a.id = p.audit_id
        WHERE p.tenant_id = $1 AND p.mode = $2 AND p.patient_id = $3 ${after}
        ORDER BY p.at DESC, p.audit_id DESC
        LIMIT $4`,
      [patientId, page.limit + 1, ...(page.after ? [page.after.value, page.after.id] : [])],
      tx,
    );
    return keysetPage(rows, page, (a) => a.at);
  }
}
