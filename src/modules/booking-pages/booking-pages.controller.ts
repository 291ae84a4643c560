import { Body, Controller, Get, Patch, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { IdParam } from '../../common/http/requests/id-param';
import { ApiErrors } from '../../common/http/openapi/openapi';
import { pageRequest } from '../../common/http/lists/pagination';
import { Created } from '../../common/http/responses/response-headers';
import { CreateSchedulerDto, ListSchedulersQueryDto, SchedulerDto, SchedulerListDto, UpdateSchedulerDto } from './dto/scheduler.dto';
import { BookingPagesService } from './booking-pages.service';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';

const COUNTERS =
  'viewsCount counts views of the public page (GET /public/schedulers/{id}), bookingsCount bookings made through it; conversionRate = bookingsCount / viewsCount (0 with no views).';

@ApiTags('Schedulers')
@Controller('schedulers')
export class BookingPagesController {
  constructor(private readonly schedulers: BookingPagesService) {}

  @Post()
  @Idempotent()
  @Created((scheduler: SchedulerDto) => ['schedulers', scheduler.id])
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'createScheduler',
    summary: 'Create a scheduler (public booking page)',
    description:
      '201 with the scheduler and Location. The slug, derived from the name when absent, is unique per tenant and mode (409 slug_taken). Every providerIds entry must name a provider of this tenant and mode (400 naming providerIds.<index>). Its public page is /api/v1/public/schedulers/{id}.',
  })
  @ApiCreatedResponse({ type: SchedulerDto, headers: { Location: { description: 'The scheduler URL', schema: { type: 'string' } } } })
  @ApiErrors('slug_taken')
  @ApiBody({
    type: CreateSchedulerDto,
    // One valid combination per example: a bare duration (and free-text type), or an appointment type.
    examples: {
      duration: {
        summary: 'A bare duration',
        value: {
          name: 'GP consultation',
          slug: 'gp-consultation',
          description: 'A 30-minute consultation with one of our GPs.',
          providerIds: ['0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b'],
          duration: 30,
          type: 'consultation',
          isActive: true,
        },
      },
      appointmentType: {
        summary: 'An appointment type (its duration, policies and providers)',
        value: {
          name: 'New patient',
          providerIds: ['0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b'],
          appointmentTypeId: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a60',
        },
      },
    },
  })
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateSchedulerDto): Promise<SchedulerDto> {
    return this.schedulers.create(auth, body);
  }

  @Get()
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({
    operationId: 'listSchedulers',
    summary: 'List schedulers, newest first',
    description: `Cursor pagination: pass nextCursor as cursor. Filter by isActive. ${COUNTERS}`,
  })
  @ApiOkResponse({ type: SchedulerListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListSchedulersQueryDto): Promise<SchedulerListDto> {
    return this.schedulers.list(auth, query, pageRequest(query));
  }

  @Get(':id')
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({ operationId: 'getScheduler', summary: 'Read a scheduler', description: COUNTERS })
  @ApiOkResponse({ type: SchedulerDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<SchedulerDto> {
    return this.schedulers.get(auth, id);
  }

  @Patch(':id')
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'updateScheduler',
    summary: 'Change a scheduler',
    description:
      'Omitted members are unchanged; `null` clears description and type. A new slug must be free (409 slug_taken). providerIds replaces the list. An inactive scheduler answers 404 on its public routes; the counters are kept.',
  })
  @ApiOkResponse({ type: SchedulerDto })
  @ApiErrors('slug_taken')
  @ApiBody({
    type: UpdateSchedulerDto,
    examples: {
      // A name alone: a length may only change on a page that books no appointment type.
      rename: {
        summary: 'A new name and description',
        value: { name: 'GP consultation (evenings)', description: 'Weekday evenings with one of our GPs.' },
      },
      appointmentType: {
        summary: 'Book an appointment type instead (clears duration and type)',
        value: { appointmentTypeId: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a60' },
      },
    },
  })
  update(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: UpdateSchedulerDto): Promise<SchedulerDto> {
    return this.schedulers.update(auth, id, body);
  }
}
