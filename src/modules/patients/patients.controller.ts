import { Body, Controller, Get, Headers, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Audited } from '../../common/audit/audited.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { parseIfMatch } from '../../common/http/responses/etag';
import { IdParam } from '../../common/http/requests/id-param';
import { ApiErrors } from '../../common/http/openapi/openapi';
import { pageRequest } from '../../common/http/lists/pagination';
import { Created, NoStore, Tagged, WithETag } from '../../common/http/responses/response-headers';
import { CreatePatientDto } from './dto/create-patient.dto';
import { ListPatientsQueryDto } from './dto/list-patients.dto';
import { PatientDto, PatientListDto, TagListDto } from './dto/patient.dto';
import { UpdatePatientDto } from './dto/update-patient.dto';
import { PatientsService } from './patients.service';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';

const ETAG_HEADER = { description: 'The version of the patient; send it as If-Match on PUT', schema: { type: 'string' } };

@ApiTags('Patients')
@Controller('patients')
@NoStore()
export class PatientsController {
  constructor(private readonly patients: PatientsService) {}

  @Post()
  @Idempotent()
  @Created((patient: PatientDto) => ['patients', patient.id])
  @WithETag()
  @Authenticated({ scope: 'patients:write', roles: ['OWNER', 'ADMIN'] })
  @Audited('patient.create')
  @ApiOperation({
    operationId: 'createPatient',
    summary: 'Create a patient',
    description:
      'firstName and lastName are required. Defaults: patientType `prospect`, patientStatus `active`, emailOptOut false. A joiningCode is assigned. Answers 201 with Location and ETag.',
  })
  @ApiCreatedResponse({
    type: PatientDto,
    headers: { ETag: ETAG_HEADER, Location: { description: 'The patient URL', schema: { type: 'string' } } },
  })
  @ApiErrors('external_id_taken')
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreatePatientDto): Promise<Tagged<PatientDto>> {
    return this.patients.create(auth, body);
  }

  @Get()
  @Authenticated({ scope: 'patients:read' })
  @Audited('patient.list')
  @ApiOperation({
    operationId: 'listPatients',
    summary: 'List patients, newest first',
    description:
      'Every filter given narrows the list (AND). Cursor pagination: pass nextCursor as cursor; a cursor stays valid while patients are added.',
  })
  @ApiOkResponse({ type: PatientListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListPatientsQueryDto): Promise<PatientListDto> {
    return this.patients.list(auth, query, pageRequest(query));
  }

  @Get('tags')
  @Authenticated({ scope: 'patients:read' })
  @Audited('patient.tags')
  @ApiOperation({
    operationId: 'listPatientTags',
    summary: 'Tags in use, with how many patients carry each',
    description: 'Most used first; at most 1,000 tags.',
  })
  @ApiOkResponse({ type: TagListDto })
  tags(@CurrentAuth() auth: AuthContext): Promise<TagListDto> {
    return this.patients.tags(auth);
  }

  @Get(':id')
  @WithETag()
  @Authenticated({ scope: 'patients:read' })
  @Audited('patient.read')
  @ApiOperation({ operationId: 'getPatient', summary: 'Read a patient' })
  @ApiOkResponse({ type: PatientDto, headers: { ETag: ETAG_HEADER } })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<Tagged<PatientDto>> {
    return this.patients.get(auth, id);
  }

  @Put(':id')
  @WithETag()
  @Authenticated({ scope: 'patients:write' })
  @Audited('patient.update')
  @ApiOperation({
    operationId: 'updatePatient',
    summary: 'Update a patient (merge)',
    description:
      'An omitted field is unchanged; `null` clears an optional field (not firstName, lastName, patientType, patientStatus, emailOptOut); `tags` replaces the list; `customFields` merges per key and a `null` value removes its key. With If-Match, answers 412 unless it names the current ETag (checked atomically).',
  })
  @ApiHeader({ name: 'If-Match', required: false, description: 'An ETag from a previous response, or *' })
  @ApiOkResponse({ type: PatientDto, headers: { ETag: ETAG_HEADER } })
  @ApiErrors('external_id_taken', 'precondition_failed')
  @ApiBody({
    type: UpdatePatientDto,
    // The members a change usually names; not externalId, which another patient may hold (409).
    examples: {
      change: {
        summary: 'A new name, address and contact details',
        value: {
          lastName: 'King',
          email: 'ada.king@example.com',
          phone: '+44 20 7946 0001',
          address: '1 Ockham Park, Surrey KT24 6PU',
          tags: ['vip'],
        },
      },
    },
  })
  update(
    @CurrentAuth() auth: AuthContext,
    @IdParam() id: string,
    @Body() body: UpdatePatientDto,
    @Headers('if-match') ifMatch: string | undefined,
  ): Promise<Tagged<PatientDto>> {
    return this.patients.update(auth, id, body, parseIfMatch(ifMatch, id));
  }
}
