import { Body, Controller, Get, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { ApiProblemResponses } from '../../common/http/openapi';
import { CustomFieldsService } from './custom-fields.service';
import { CreateCustomFieldDto, CustomFieldDto, CustomFieldListDto } from './dto/custom-field.dto';

@ApiTags('Patients')
@Controller('patients/custom-fields')
export class PatientCustomFieldsController {
  constructor(private readonly fields: CustomFieldsService) {}

  @Get()
  @Authenticated({ scope: 'patients:read' })
  @ApiOperation({ summary: 'List the custom field definitions', description: 'Oldest first; not paginated (definitions are few).' })
  @ApiOkResponse({ type: CustomFieldListDto })
  list(@CurrentAuth() auth: AuthContext): Promise<CustomFieldListDto> {
    return this.fields.list(auth);
  }

  @Post()
  @Authenticated({ scope: 'patients:write', roles: ['OWNER', 'ADMIN'] })
  @ApiOperation({
    summary: 'Define a custom field',
    description:
      'type: text (≤ 2,000 chars), number, boolean, date (YYYY-MM-DD) or select (with options). The key is unique per tenant and mode (409 custom_field_key_taken).',
  })
  @ApiCreatedResponse({ type: CustomFieldDto })
  @ApiProblemResponses(400, 409)
  async create(
    @CurrentAuth() auth: AuthContext,
    @Body() body: CreateCustomFieldDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CustomFieldDto> {
    const field = await this.fields.create(auth, body);
    void reply.header('location', `/api/v1/patients/custom-fields`);
    return field;
  }
}
