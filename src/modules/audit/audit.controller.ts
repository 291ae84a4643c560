import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audited } from '../../common/audit/audited.decorator';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import { pageRequest } from '../../common/http/lists/pagination';
import { AuditService } from './audit.service';
import { AuditLogDto, ListAuditLogQueryDto } from './dto/audit-entry.dto';

@ApiTags('Settings')
@Controller('settings/audit-log')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @Authenticated({ scope: 'settings:read', roles: ['OWNER', 'ADMIN'] })
  @Audited('audit_log.list')
  @ApiOperation({
    operationId: 'listAuditLog',
    summary: 'The audit log, newest first',
    description:
      'One entry per request that read or changed patient data, API keys, settings, events or webhooks: the key, action, resource, HTTP status, request id and client IP (never the data itself). Entries are written in batches within about a second and cannot be changed or deleted.',
  })
  @ApiOkResponse({ type: AuditLogDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListAuditLogQueryDto): Promise<AuditLogDto> {
    return this.audit.list(auth, query, pageRequest(query));
  }
}
