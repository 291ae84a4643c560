import { Injectable } from '@nestjs/common';
import { PageRequest } from '../../common/http/lists/pagination';
import { timeRange } from '../../common/http/lists/time-range';
import { ReadReplicas } from '../../database/read-replicas';
import { TenantScope } from '../../database/tenant-owned.entity';
import { AuditRepository } from './audit.repository';
import { AuditEntryDto, AuditLogDto, ListAuditLogQueryDto } from './dto/audit-entry.dto';
import { PatientAccessLogDto } from './dto/patient-access.dto';
import { AuditEntryEntity } from './entities/audit-entry.entity';

@Injectable()
export class AuditService {
  constructor(
    private readonly audit: AuditRepository,
    private readonly replicas: ReadReplicas,
  ) {}

  async list(scope: TenantScope, query: ListAuditLogQueryDto, page: PageRequest): Promise<AuditLogDto> {
    const { resourceId, resourceType, apiKeyId, action } = query;
    const filters = { resourceId, resourceType, apiKeyId, action, ...timeRange(query) };
    const result = await this.replicas.read((db) => this.audit.list(scope, filters, page, db));
    return { entries: result.items.map(toDto), nextCursor: result.nextCursor };
  }

  /** Every answer that carried the patient's data, newest first; the caller has checked the patient is the scope's. */
  async patientAccessLog(scope: TenantScope, patientId: string, page: PageRequest): Promise<PatientAccessLogDto> {
    const result = await this.replicas.read((db) => this.audit.patientAccesses(scope, patientId, page, db));
    return {
      entries: result.items.map((e) => ({
        id: e.id,
        at: e.at.toISOString(),
        apiKeyId: e.apiKeyId,
        action: e.action,
        requestId: e.requestId,
        ip: e.ip,
      })),
      nextCursor: result.nextCursor,
    };
  }
}

function toDto(e: AuditEntryEntity): AuditEntryDto {
  return {
    id: e.id,
    at: e.at.toISOString(),
    apiKeyId: e.apiKeyId,
    action: e.action,
    resourceType: e.resourceType,
    resourceId: e.resourceId,
    status: e.status,
    requestId: e.requestId,
    ip: e.ip,
  };
}
