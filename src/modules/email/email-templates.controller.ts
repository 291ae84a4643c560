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
  CreateEmailTemplateDto,
  EmailPreviewDto,
  EmailTemplateDto,
  EmailTemplateListDto,
  PreviewEmailTemplateDto,
  UpdateEmailTemplateDto,
} from './dto/email-template.dto';
import { EmailTemplatesService } from './email-templates.service';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';

const PLACEHOLDERS =
  "Parts are Handlebars: `{{patient.firstName}}`, `{{patient.lastName}}`, `{{patient.fullName}}`, `{{patient.email}}`, `{{practice.name}}` (and any other practice setting) and the caller's own variables; `{{#if}}`, `{{#each}}`, `{{#unless}}` and `{{#with}}` blocks. Values are HTML-escaped in htmlContent and printed as they are in the subject and textContent. A part that does not compile is 400 validation_failed naming it.";

@ApiTags('Email')
@Controller('emails/templates')
export class EmailTemplatesController {
  constructor(private readonly templates: EmailTemplatesService) {}

  @Post()
  @Idempotent()
  @Created((template: EmailTemplateDto) => ['emails', 'templates', template.id])
  @Authenticated({ scope: 'emails:write' })
  @ApiOperation({
    operationId: 'createEmailTemplate',
    summary: 'Create an email template',
    description: `A subject and at least one of htmlContent and textContent. ${PLACEHOLDERS}`,
  })
  @ApiCreatedResponse({ type: EmailTemplateDto, headers: { Location: { description: 'The template URL', schema: { type: 'string' } } } })
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateEmailTemplateDto): Promise<EmailTemplateDto> {
    return this.templates.create(auth, body);
  }

  @Get()
  @Authenticated({ scope: 'emails:read' })
  @ApiOperation({
    operationId: 'listEmailTemplates',
    summary: 'List email templates, newest first',
    description: 'Cursor pagination: pass nextCursor as cursor.',
  })
  @ApiOkResponse({ type: EmailTemplateListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: PageQueryDto): Promise<EmailTemplateListDto> {
    return this.templates.list(auth, pageRequest(query));
  }

  @Get(':id')
  @Authenticated({ scope: 'emails:read' })
  @ApiOperation({ operationId: 'getEmailTemplate', summary: 'Read an email template' })
  @ApiOkResponse({ type: EmailTemplateDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<EmailTemplateDto> {
    return this.templates.get(auth, id);
  }

  @Patch(':id')
  @Authenticated({ scope: 'emails:write' })
  @ApiOperation({
    operationId: 'updateEmailTemplate',
    summary: 'Change an email template',
    description: `Omitted members are unchanged; \`null\` removes htmlContent or textContent (one must remain). Messages already queued keep the content they were rendered with. ${PLACEHOLDERS}`,
  })
  @ApiOkResponse({ type: EmailTemplateDto })
  update(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: UpdateEmailTemplateDto): Promise<EmailTemplateDto> {
    return this.templates.update(auth, id, body);
  }

  @Post(':id/preview')
  @Idempotent()
  @HttpCode(200)
  @NoStore()
  @Audited('email_template.preview')
  @Authenticated({ scope: 'emails:write', scopesWhenSent: { patientId: 'patients:read' } })
  @ApiOperation({
    operationId: 'previewEmailTemplate',
    summary: 'Render an email template without sending it',
    description:
      "Renders the template for a patient (patientId, of your tenant and mode: 400 naming it otherwise; it shows the patient's name, email and phone, so it needs the `patients:read` scope as well) and variables, exactly as a send would. Without patientId, `variables.patient` may supply sample values.",
  })
  @ApiOkResponse({ type: EmailPreviewDto })
  @ApiBody({ type: PreviewEmailTemplateDto, examples: previewExamples('Monday 24 November, 09:30') })
  preview(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: PreviewEmailTemplateDto): Promise<EmailPreviewDto> {
    return this.templates.preview(auth, id, body);
  }
}
