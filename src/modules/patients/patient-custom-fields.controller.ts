import { Body, Controller, Get, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Audited } from '../../common/audit/audited.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { ApiErrors } from '../../common/http/openapi/openapi';
import { Created } from '../../common/http/responses/response-headers';
import { CustomFieldsService } from './custom-fields.service';
import { CreateCustomFieldDto, CustomFieldDto, CustomFieldListDto } from './dto/custom-field.dto';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';

@ApiTags('Patients')
@Controller('patients/custom-fields')
export class PatientCustomFieldsController {
  constructor(private readonly fields: CustomFieldsService) {}

  @Get()
  @Authenticated({ scope: 'patients:read' })
  @Audited('patient_custom_field.list')
  @ApiOperation({
    operationId: 'listPatientCustomFields',
    summary: 'List the custom field definitions',
    description: 'Oldest first; not paginated (definitions are few).',
  })
  @ApiOkResponse({ type: CustomFieldListDto })
  list(@CurrentAuth() auth: AuthContext): Promise<CustomFieldListDto> {
    return this.fields.list(auth);
  }

  @Post()
  @Idempotent()
  // Definitions are read as a list only.
  @Created(() => ['patients', 'custom-fields'])
  @Authenticated({ scope: 'patients:write', roles: ['OWNER', 'ADMIN'] })
  @Audited('patient_custom_field.create')
  @ApiOperation({
    operationId: 'createPatientCustomField',
    summary: 'Define a custom field',
    description:
      'type: text (≤ 2,000 chars), number, boolean, date (YYYY-MM-DD) or select (with options). The key is unique per tenant and mode (409 custom_field_key_taken).',
  })
  @ApiCreatedResponse({ type: CustomFieldDto })
  @ApiErrors('custom_field_key_taken')
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateCustomFieldDto): Promise<CustomFieldDto> {
    return this.fields.create(auth, body);
  }
}
