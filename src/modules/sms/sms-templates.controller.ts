import { Body, Controller, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audited } from '../../common/audit/audited.decorator';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import { previewExamples } from '../../common/templates/preview-examples';
import type { AuthContext } from '../../common/auth/auth.types';
import { IdParam } from '../../common/http/requests/id-param';
import { PageQueryDto, pageRequest } from '../../common/http/lists/pagination';
import { Created, NoStore } from '../../common/http/responses/response-headers';
import {
  CreateSmsTemplateDto,
  PreviewSmsTemplateDto,
  SmsPreviewDto,
  SmsTemplateDto,
  SmsTemplateListDto,
  UpdateSmsTemplateDto,
} from './dto/sms-template.dto';
import { SmsTemplatesService } from './sms-templates.service';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';

@ApiTags('SMS')
@Controller('sms/templates')
export class SmsTemplatesController {
  constructor(private readonly templates: SmsTemplatesService) {}

  @Post()
  @Idempotent()
  @Created((template: SmsTemplateDto) => ['sms', 'templates', template.id])
  @Authenticated({ scope: 'sms:write' })
  @ApiOperation({
    operationId: 'createSmsTemplate',
    summary: 'Create an SMS template',
    description: 'The body is compiled now: a body that does not compile is 400 naming `body`. Answers 201 with Location.',
  })
  @ApiCreatedResponse({ type: SmsTemplateDto, headers: { Location: { description: 'The template URL', schema: { type: 'string' } } } })
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateSmsTemplateDto): Promise<SmsTemplateDto> {
    return this.templates.create(auth, body);
  }

  @Get()
  @Authenticated({ scope: 'sms:read' })
  @ApiOperation({
    operationId: 'listSmsTemplates',
    summary: 'List SMS templates, newest first',
    description: 'Cursor pagination: pass nextCursor as cursor.',
  })
  @ApiOkResponse({ type: SmsTemplateListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: PageQueryDto): Promise<SmsTemplateListDto> {
    return this.templates.list(auth, pageRequest(query));
  }

  @Get(':id')
  @Authenticated({ scope: 'sms:read' })
  @ApiOperation({ operationId: 'getSmsTemplate', summary: 'Read an SMS template' })
  @ApiOkResponse({ type: SmsTemplateDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<SmsTemplateDto> {
    return this.templates.get(auth, id);
  }

  @Patch(':id')
  @Authenticated({ scope: 'sms:write' })
  @ApiOperation({
    operationId: 'updateSmsTemplate',
    summary: 'Change an SMS template',
    description: 'Omitted members are unchanged; a new body is compiled first (400 naming `body` when it does not compile).',
  })
  @ApiOkResponse({ type: SmsTemplateDto })
  update(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: UpdateSmsTemplateDto): Promise<SmsTemplateDto> {
    return this.templates.update(auth, id, body);
  }

  @Post(':id/preview')
  @Idempotent()
  @HttpCode(200)
  @NoStore()
  @Authenticated({ scope: 'sms:write', scopesWhenSent: { patientId: 'patients:read' } })
  @Audited('sms_template.preview')
  @ApiOperation({
    operationId: 'previewSmsTemplate',
    summary: 'Render an SMS template without sending it',
    description:
      'Renders the body with `patient` (the patient named by patientId, which needs the `patients:read` scope as well; an id of no patient of this tenant and mode is 400 naming patientId), `practice` (the practice settings) and `variables`. Answers the text with its encoding (GSM-7, or UCS-2 as soon as one character is outside the GSM 03.38 alphabet) and how many segments it takes: GSM-7 160 septets in one message and 153 per part (€, {, }, [, ], ~, \\, |, ^ count 2), UCS-2 70 UTF-16 code units and 67 per part.',
  })
  @ApiOkResponse({ type: SmsPreviewDto })
  @ApiBody({ type: PreviewSmsTemplateDto, examples: previewExamples('2 December at 09:30') })
  preview(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: PreviewSmsTemplateDto): Promise<SmsPreviewDto> {
    return this.templates.preview(auth, id, body);
  }
}
