import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../../common/auth/current-auth.decorator';
import { Authenticated } from '../../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../../common/auth/auth.types';
import { IdParam } from '../../../common/http/requests/id-param';
import { PageQueryDto, pageRequest } from '../../../common/http/lists/pagination';
import { Created } from '../../../common/http/responses/response-headers';
import { ListProvidersQueryDto } from './dto/list-providers.dto';
import { CreateProviderDto, ProviderDto, ProviderListDto, UpdateProviderDto } from './dto/provider.dto';
import { CreateTimeOffDto, TimeOffDto, TimeOffListDto } from './dto/time-off.dto';
import { ProvidersService } from './providers.service';
import { Idempotent } from '../../../common/idempotency/idempotent.decorator';

const LOCATION = { Location: { description: 'The URL of the created resource', schema: { type: 'string' } } };

@ApiTags('Scheduling')
@Controller('scheduling/providers')
export class ProvidersController {
  constructor(private readonly providers: ProvidersService) {}

  @Post()
  @Idempotent()
  @Created((provider: ProviderDto) => ['scheduling', 'providers', provider.id])
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'createProvider',
    summary: 'Create a provider',
    description:
      'timezone is an IANA name; workingHours are weekly intervals in that timezone (several a day allowed, touching ones join). isActive defaults to true.',
  })
  @ApiCreatedResponse({ type: ProviderDto, headers: LOCATION })
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateProviderDto): Promise<ProviderDto> {
    return this.providers.create(auth, body);
  }

  @Get()
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({ operationId: 'listProviders', summary: 'List providers, newest first' })
  @ApiOkResponse({ type: ProviderListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListProvidersQueryDto): Promise<ProviderListDto> {
    return this.providers.list(auth, { isActive: query.isActive }, pageRequest(query));
  }

  @Get(':id')
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({ operationId: 'getProvider', summary: 'Read a provider' })
  @ApiOkResponse({ type: ProviderDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<ProviderDto> {
    return this.providers.get(auth, id);
  }

  @Patch(':id')
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'updateProvider',
    summary: 'Update a provider',
    description: 'An omitted field is unchanged; workingHours replaces the whole week. Existing appointments are kept.',
  })
  @ApiOkResponse({ type: ProviderDto })
  update(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: UpdateProviderDto): Promise<ProviderDto> {
    return this.providers.update(auth, id, body);
  }

  @Post(':id/time-off')
  @Idempotent()
  @Created((_timeOff: TimeOffDto, params) => ['scheduling', 'providers', params.id, 'time-off'])
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'createProviderTimeOff',
    summary: 'Add time off',
    description: 'Availability offers no slot overlapping it and bookings into it are refused. Existing appointments are kept.',
  })
  @ApiCreatedResponse({ type: TimeOffDto, headers: LOCATION })
  addTimeOff(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: CreateTimeOffDto): Promise<TimeOffDto> {
    return this.providers.addTimeOff(auth, id, body);
  }

  @Get(':id/time-off')
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({ operationId: 'listProviderTimeOff', summary: "A provider's time off, by start ascending" })
  @ApiOkResponse({ type: TimeOffListDto })
  listTimeOff(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Query() query: PageQueryDto): Promise<TimeOffListDto> {
    return this.providers.listTimeOff(auth, id, pageRequest(query));
  }

  @Delete(':id/time-off/:timeOffId')
  @HttpCode(204)
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({ operationId: 'deleteProviderTimeOff', summary: 'Remove time off' })
  @ApiNoContentResponse({ description: 'Removed' })
  removeTimeOff(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @IdParam('timeOffId') timeOffId: string): Promise<void> {
    return this.providers.removeTimeOff(auth, id, timeOffId);
  }
}
