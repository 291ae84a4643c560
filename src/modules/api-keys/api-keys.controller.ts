import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Audited } from '../../common/audit/audited.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { IdParam } from '../../common/http/requests/id-param';
import { ApiErrors } from '../../common/http/openapi/openapi';
import { PageQueryDto, pageRequest } from '../../common/http/lists/pagination';
import { Created, NoStore } from '../../common/http/responses/response-headers';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyListDto, CreatedApiKeyDto } from './dto/api-key.dto';
import { CreateApiKeyDto } from './dto/create-api-key.dto';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';

@ApiTags('API keys')
@Controller('settings/portal-access-keys')
export class ApiKeysController {
  constructor(private readonly apiKeys: ApiKeysService) {}

  @Get()
  @Authenticated({ scope: 'settings:read', roles: ['OWNER', 'ADMIN'] })
  @Audited('api_key.list')
  @ApiOperation({ operationId: 'listApiKeys', summary: "List the tenant's API keys of the caller's mode (never the secrets)" })
  @ApiOkResponse({ type: ApiKeyListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: PageQueryDto): Promise<ApiKeyListDto> {
    return this.apiKeys.list(auth, pageRequest(query));
  }

  @Post()
  @Idempotent()
  @Created((key: CreatedApiKeyDto) => ['settings', 'portal-access-keys', key.id])
  // The answer carries the key's secret.
  @NoStore()
  @Authenticated({ scope: 'settings:write', roles: ['OWNER', 'ADMIN'] })
  @Audited('api_key.create')
  @ApiOperation({
    operationId: 'createApiKey',
    summary: 'Create an API key; the key is in this response only',
    description: "The new key has the caller's mode; its role and scopes default to the caller's and may not exceed them (403 otherwise).",
  })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.apiKeys.create(auth, body);
  }

  @Delete(':keyId')
  @HttpCode(204)
  @Authenticated({ scope: 'settings:write', roles: ['OWNER', 'ADMIN'] })
  @Audited('api_key.revoke', { idParam: 'keyId' })
  @ApiOperation({
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key; it answers 401 from the next request on, on every instance',
    description: "A mode's last active (not revoked, not expired) OWNER key cannot be revoked: 409 last_owner_key.",
  })
  @ApiNoContentResponse({ description: 'Revoked (or already revoked)' })
  @ApiErrors('last_owner_key')
  async revoke(@CurrentAuth() auth: AuthContext, @IdParam('keyId') keyId: string): Promise<void> {
    await this.apiKeys.revoke(auth, keyId);
  }
}
