import { Body, Controller, Get, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { IdParam } from '../../common/http/requests/id-param';
import { ApiErrors } from '../../common/http/openapi/openapi';
import { pageRequest } from '../../common/http/lists/pagination';
import { Created } from '../../common/http/responses/response-headers';
import { CreateFormDto } from './dto/create-form.dto';
import { FormDto, FormListDto, ListFormsQueryDto } from './dto/form.dto';
import { UpdateFormDto } from './dto/update-form.dto';
import { FormsService } from './forms.service';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';

const FIELD_RULES =
  'Field types: text, textarea, email, phone, number, date, select, multiselect, checkbox. `options` is required for select and multiselect (1–500 distinct values); `min`/`max` apply to number fields, `maxLength` to text (≤ 2,000) and textarea (≤ 20,000). At most 200 fields, ids unique in the form.';

@ApiTags('Forms')
@Controller('forms')
export class FormsController {
  constructor(private readonly forms: FormsService) {}

  @Post()
  @Idempotent()
  @Created((form: FormDto) => ['forms', form.id])
  @Authenticated({ scope: 'forms:write', roles: ['OWNER', 'ADMIN'] })
  @ApiOperation({
    operationId: 'createForm',
    summary: 'Create a form',
    description: `Answers 201 with the form (version 1) and Location. The slug, derived from the name when absent, is unique per tenant and mode (409 slug_taken). ${FIELD_RULES}`,
  })
  @ApiCreatedResponse({ type: FormDto, headers: { Location: { description: 'The form URL', schema: { type: 'string' } } } })
  @ApiErrors('slug_taken')
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateFormDto): Promise<FormDto> {
    return this.forms.create(auth, body);
  }

  @Get()
  @Authenticated({ scope: 'forms:read' })
  @ApiOperation({
    operationId: 'listForms',
    summary: 'List forms, newest first',
    description: 'Cursor pagination: pass nextCursor as cursor. Filter by isActive.',
  })
  @ApiOkResponse({ type: FormListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListFormsQueryDto): Promise<FormListDto> {
    return this.forms.list(auth, query, pageRequest(query));
  }

  @Get(':id')
  @Authenticated({ scope: 'forms:read' })
  @ApiOperation({ operationId: 'getForm', summary: 'Read a form', description: 'With the fields of its current version.' })
  @ApiOkResponse({ type: FormDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<FormDto> {
    return this.forms.get(auth, id);
  }

  @Patch(':id')
  @Authenticated({ scope: 'forms:write', roles: ['OWNER', 'ADMIN'] })
  @ApiOperation({
    operationId: 'updateForm',
    summary: 'Change a form',
    description: `Omitted members are unchanged; \`description: null\` clears it. \`fields\` replaces the list and, when it differs, makes the next version: past submissions keep the version they answered. An inactive form refuses submissions. ${FIELD_RULES}`,
  })
  @ApiOkResponse({ type: FormDto })
  update(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: UpdateFormDto): Promise<FormDto> {
    return this.forms.update(auth, id, body);
  }
}
