import { Body, Controller, Get, HttpCode, Param, ParseEnumPipe, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Audited } from '../../common/audit/audited.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { ApiProblemResponses } from '../../common/http/openapi';
import { NotFoundException } from '../../common/http/problem';
import { SettingsDto, SettingsUpdatedDto } from './dto/settings.dto';
import { SETTINGS_SECTIONS } from './entities/settings.entity';
import type { SettingsSection } from './entities/settings.entity';
import { SettingsService } from './settings.service';

const SectionParam = (): ParameterDecorator =>
  Param(
    'section',
    new ParseEnumPipe(Object.fromEntries(SETTINGS_SECTIONS.map((s) => [s, s])), { exceptionFactory: () => new NotFoundException() }),
  );

const SECTION_DOC = ApiParam({ name: 'section', enum: SETTINGS_SECTIONS });

@ApiTags('Settings')
@Controller('settings')
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get(':section')
  @Authenticated({ scope: 'settings:read' })
  @Audited('settings.read', { idParam: 'section' })
  @SECTION_DOC
  @ApiOperation({ summary: 'Read the portal, practice or brand settings' })
  @ApiOkResponse({ type: SettingsDto })
  @ApiProblemResponses(404)
  get(@CurrentAuth() auth: AuthContext, @SectionParam() section: SettingsSection): Promise<SettingsDto> {
    return this.settings.get(auth, section);
  }

  @Post(':section')
  @HttpCode(200)
  @Authenticated({ scope: 'settings:write', roles: ['OWNER', 'ADMIN'] })
  @Audited('settings.update', { idParam: 'section' })
  @SECTION_DOC
  @ApiOperation({
    summary: 'Merge keys into the settings',
    description:
      'Top-level keys are merged; a `null` value deletes its key. The body must be a JSON object of at most 64 KiB and 10 levels; `__proto__`, `constructor` and `prototype` keys are rejected.',
  })
  @ApiBody({ schema: { type: 'object', additionalProperties: true, example: { timezone: 'Europe/London', legacyFlag: null } } })
  @ApiOkResponse({ type: SettingsUpdatedDto })
  @ApiProblemResponses(400, 404, 413)
  update(@CurrentAuth() auth: AuthContext, @SectionParam() section: SettingsSection, @Body() body: unknown): Promise<SettingsUpdatedDto> {
    return this.settings.update(auth, section, body);
  }
}
