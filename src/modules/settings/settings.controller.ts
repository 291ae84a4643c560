import { applyDecorators, Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Audited } from '../../common/audit/audited.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { SETTINGS_BODY_SCHEMAS, SettingsDto, SettingsUpdatedDto } from './dto/settings.dto';
import type { SettingsSection } from './entities/settings.entity';
import { SettingsService } from './settings.service';

const NAMES: Record<SettingsSection, string> = { portal: 'Portal', practice: 'Practice', brand: 'Brand' };

/** GET /settings/<section>: one literal path per section, so generated clients get named operations. */
function ReadSettings(section: SettingsSection): MethodDecorator {
  return applyDecorators(
    Get(section),
    Authenticated({ scope: 'settings:read' }),
    Audited('settings.read', { resourceId: section }),
    ApiOperation({ operationId: `get${NAMES[section]}Settings`, summary: `Read the ${section} settings` }),
    ApiOkResponse({ type: SettingsDto }),
  );
}

/** POST /settings/<section>: merges top-level keys. */
function UpdateSettings(section: SettingsSection): MethodDecorator {
  return applyDecorators(
    Post(section),
    Idempotent(),
    HttpCode(200),
    Authenticated({ scope: 'settings:write', roles: ['OWNER', 'ADMIN'] }),
    Audited('settings.update', { resourceId: section }),
    ApiOperation({
      operationId: `update${NAMES[section]}Settings`,
      summary: `Merge keys into the ${section} settings`,
      description:
        "Top-level keys are merged; a `null` value deletes its key. The body must be a JSON object of at most 64 KiB and 10 levels; `__proto__`, `constructor` and `prototype` keys are rejected. The practice section shows `smsFromNumber`, the number the practice texts from, which operators assign: a body naming it is refused (400). The practice section's `smsCountries` (1 to 50 upper-case ISO 3166-1 alpha-2 codes; `null`: the country of the sending number) limits the countries the practice texts; anything else there is 400 naming it.",
    }),
    ApiBody({ schema: SETTINGS_BODY_SCHEMAS[section] }),
    ApiOkResponse({ type: SettingsUpdatedDto }),
  );
}

@ApiTags('Settings')
@Controller('settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @ReadSettings('portal')
  getPortal(@CurrentAuth() auth: AuthContext): Promise<SettingsDto> {
    return this.settings.get(auth, 'portal');
  }

  @UpdateSettings('portal')
  updatePortal(@CurrentAuth() auth: AuthContext, @Body() body: unknown): Promise<SettingsUpdatedDto> {
    return this.settings.update(auth, 'portal', body);
  }

  @ReadSettings('practice')
  getPractice(@CurrentAuth() auth: AuthContext): Promise<SettingsDto> {
    return this.settings.get(auth, 'practice');
  }

  @UpdateSettings('practice')
  updatePractice(@CurrentAuth() auth: AuthContext, @Body() body: unknown): Promise<SettingsUpdatedDto> {
    return this.settings.update(auth, 'practice', body);
  }

  @ReadSettings('brand')
  getBrand(@CurrentAuth() auth: AuthContext): Promise<SettingsDto> {
    return this.settings.get(auth, 'brand');
  }

  @UpdateSettings('brand')
  updateBrand(@CurrentAuth() auth: AuthContext, @Body() body: unknown): Promise<SettingsUpdatedDto> {
    return this.settings.update(auth, 'brand', body);
  }
}
