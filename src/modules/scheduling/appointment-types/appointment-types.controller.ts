import { Body, Controller, Get, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../../common/auth/current-auth.decorator';
import { Authenticated } from '../../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../../common/auth/auth.types';
import { Idempotent } from '../../../common/idempotency/idempotent.decorator';
import { IdParam } from '../../../common/http/requests/id-param';
import { pageRequest } from '../../../common/http/lists/pagination';
import { Created } from '../../../common/http/responses/response-headers';
import { AppointmentTypesService } from './appointment-types.service';
import {
  AppointmentTypeDto,
  AppointmentTypeListDto,
  CreateAppointmentTypeDto,
  ListAppointmentTypesQueryDto,
  UpdateAppointmentTypeDto,
} from './dto/appointment-type.dto';

const POLICIES =
  "A slot of the type is offered only if it starts at least minimumNoticeMinutes from now and at most bookingHorizonDays (of 24 hours) ahead, on a grid of slotIntervalMinutes from each working interval's start, with one of its providers (empty providerIds: every active provider) who has fewer than maxPerDayPerProvider active appointments of the type that local day, and if the slot widened by its buffers overlaps no active appointment widened by that appointment's own buffers. cancellationWindowMinutes: how long before the start a patient's manage link stops cancelling and rescheduling. See docs/appointment-types.md.";

@ApiTags('Scheduling')
@Controller('scheduling/appointment-types')
export class AppointmentTypesController {
  constructor(private readonly types: AppointmentTypesService) {}

  @Post()
  @Idempotent()
  @Created((type: AppointmentTypeDto) => ['scheduling', 'appointment-types', type.id])
  @Authenticated({ scope: 'scheduling:write', roles: ['OWNER', 'ADMIN'] })
  @ApiOperation({
    operationId: 'createAppointmentType',
    summary: 'Create an appointment type with its booking policies',
    description: `201 with the type and Location. Defaults: no buffers, no notice, a 365-day horizon, a grid of the smaller of durationMinutes and 15, no daily cap, a 1440-minute (24 h) cancellation window, every active provider, no reminders. providerIds must name providers of this tenant and mode (400 naming providerIds.<i>); each reminder's templateId an email template (channel email) or SMS template (channel sms) of this tenant and mode (400 naming reminders.<i>.templateId). ${POLICIES}`,
  })
  @ApiCreatedResponse({
    type: AppointmentTypeDto,
    headers: { Location: { description: 'The appointment type URL', schema: { type: 'string' } } },
  })
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateAppointmentTypeDto): Promise<AppointmentTypeDto> {
    return this.types.create(auth, body);
  }

  @Get()
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({
    operationId: 'listAppointmentTypes',
    summary: 'List appointment types, newest first',
    description: 'Cursor pagination: pass nextCursor as cursor.',
  })
  @ApiOkResponse({ type: AppointmentTypeListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListAppointmentTypesQueryDto): Promise<AppointmentTypeListDto> {
    return this.types.list(auth, pageRequest(query));
  }

  @Get(':id')
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({ operationId: 'getAppointmentType', summary: 'Read an appointment type', description: POLICIES })
  @ApiOkResponse({ type: AppointmentTypeDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<AppointmentTypeDto> {
    return this.types.get(auth, id);
  }

  @Patch(':id')
  @Authenticated({ scope: 'scheduling:write', roles: ['OWNER', 'ADMIN'] })
  @ApiOperation({
    operationId: 'updateAppointmentType',
    summary: 'Change an appointment type',
    description:
      "Omitted members are unchanged; `null` clears maxPerDayPerProvider (no cap). providerIds and reminders replace their lists and are checked as on create. A new durationMinutes keeps the stored slotIntervalMinutes. Booked appointments keep their time; their buffers are always the type's current ones. An inactive type is no longer offered or booked.",
  })
  @ApiOkResponse({ type: AppointmentTypeDto })
  update(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: UpdateAppointmentTypeDto): Promise<AppointmentTypeDto> {
    return this.types.update(auth, id, body);
  }
}
