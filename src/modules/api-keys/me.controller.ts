import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { RateLimitInspector } from '../../common/auth/rate-limit-inspector';
import { MeDto } from './dto/me.dto';

@ApiTags('API keys')
@Controller('me')
export class MeController {
  constructor(private readonly rateLimits: RateLimitInspector) {}

  @Get()
  @Authenticated()
  @ApiOperation({ operationId: 'getMe', summary: 'The calling key: its tenant, mode, role, scopes, expiry and rate-limit budget' })
  @ApiOkResponse({ type: MeDto })
  async me(@CurrentAuth() auth: AuthContext): Promise<MeDto> {
    return {
      tenant: { id: auth.tenantId, name: auth.tenantName },
      key: {
        id: auth.apiKeyId,
        name: auth.keyName,
        mode: auth.mode,
        role: auth.role,
        scopes: auth.scopes,
        expiresAt: auth.expiresAt ? auth.expiresAt.toISOString() : null,
      },
      rateLimits: await this.rateLimits.budget(auth),
    };
  }
}
