import { Body, Controller, Get, HttpCode, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Audited } from '../../../common/audit/audited.decorator';
import { CurrentAuth } from '../../../common/auth/current-auth.decorator';
import { Authenticated } from '../../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../../common/auth/auth.types';
import { localDateFromNow } from '../../../common/http/openapi/example-dates';
import { ApiErrors } from '../../../common/http/openapi/openapi';
import { IdParam } from '../../../common/http/requests/id-param';
import { pageRequest } from '../../../common/http/lists/pagination';
import { Created } from '../../../common/http/responses/response-headers';
import { Idempotent } from '../../../common/idempotency/idempotent.decorator';
import {
  CancelSeriesDto,
  CreateSeriesDto,
  CreateSeriesQueryDto,
  ListSeriesQueryDto,
  SeriesDto,
  SeriesListDto,
  SeriesOutcomeDto,
  UpdateSeriesDto,
} from './dto/series.dto';
import { SeriesService } from './series.service';

@ApiTags('Scheduling')
@Controller('scheduling/series')
export class SeriesController {
  constructor(private readonly series: SeriesService) {}

  @Post()
  @Idempotent()
  @Audited('series.create')
  @Created((series: SeriesDto | SeriesOutcomeDto) => ('conflicts' in series ? undefined : ['scheduling', 'series', series.id]))
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'createSeries',
    summary: 'Book a recurring series',
    description: [
      "`start` is a wall time in `timezone` (default the provider's) and every occurrence keeps it across daylight-saving changes: a time the clocks skip moves forward by the gap, a time they pass twice is the first. `rrule` is the RFC 5545 subset FREQ=DAILY|WEEKLY|MONTHLY, INTERVAL, BYDAY (weekly days; monthly 2TU, -1FR), BYMONTHDAY, and exactly one of COUNT (counted before exdates are left out) or UNTIL; at most 52 occurrences within 366 days, else 400 on `rrule`.",
      "Each occurrence is checked as POST /scheduling/book checks a booking (working hours, time off, overlaps, the type's buffers, daily cap and horizon; its minimum notice for the first occurrence only) and booked as one, with its reminders and `appointment.booked` (carrying `seriesId`), all in one transaction with `series.created`. `onConflict: reject` (default): if any occurrence cannot be booked, 409 `series_conflicts` lists each (`index`, `datetime`, `reason`: overlap, outside_working_hours, time_off or policy, and `alternatives`) and nothing is written. `skip`: the others are booked and these are listed with status `skipped` and their reason.",
      '`?dryRun=true`: 200 with the series as it would be (no appointment ids) and its `conflicts`; nothing is written. `notifyPatient: true` sends the patient one booking notice, for the first booked occurrence (with its .ics and manage link).',
    ].join('\n\n'),
  })
  @ApiCreatedResponse({ type: SeriesDto, headers: { Location: { description: 'The series URL', schema: { type: 'string' } } } })
  @ApiOkResponse({ type: SeriesOutcomeDto, description: 'Dry run: the series as it would be and its conflicts; nothing written' })
  @ApiErrors('series_conflicts')
  @ApiBody({
    type: CreateSeriesDto,
    // Written out so that the optional appointmentTypeId is not pre-filled with an id that names nothing.
    examples: {
      weekly: {
        summary: 'Four weekly visits of a length of your choice',
        value: {
          patientId: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40',
          providerId: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b',
          duration: 30,
          start: localDateFromNow(35, '09:00'),
          timezone: 'America/New_York',
          rrule: 'FREQ=WEEKLY;COUNT=4',
          notes: 'Weekly physiotherapy',
        },
      },
      appointmentType: {
        summary: 'An appointment type on the last Monday of each month, skipping what cannot be booked',
        value: {
          patientId: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40',
          providerId: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b',
          appointmentTypeId: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a60',
          start: localDateFromNow(42, '09:00'),
          timezone: 'America/New_York',
          rrule: 'FREQ=MONTHLY;BYDAY=-1MO;COUNT=3',
          onConflict: 'skip',
        },
      },
    },
  })
  async create(
    @CurrentAuth() auth: AuthContext,
    @Query() query: CreateSeriesQueryDto,
    @Body() body: CreateSeriesDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SeriesDto | SeriesOutcomeDto> {
    // A dry run writes nothing: 200 rather than the route's 201.
    if (query.dryRun) void reply.status(200);
    return this.series.create(auth, body, query.dryRun ?? false);
  }

  @Get()
  @Audited('series.list')
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({ operationId: 'listSeries', summary: 'List recurring series, newest first', description: 'Filters combine (AND).' })
  @ApiOkResponse({ type: SeriesListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListSeriesQueryDto): Promise<SeriesListDto> {
    return this.series.list(auth, query, pageRequest(query));
  }

  @Get(':id')
  @Audited('series.read')
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({ operationId: 'getSeries', summary: 'Read a recurring series and its occurrences' })
  @ApiOkResponse({ type: SeriesDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<SeriesDto> {
    return this.series.get(auth, id);
  }

  @Patch(':id')
  @Audited('series.update')
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'updateSeries',
    summary: 'Move the occurrences of a series',
    description:
      "Changes each scheduled or confirmed occurrence in scope that has not started (`all`, or `following` from the occurrence whose appointmentId is `from`, that one included): `localTime` (a wall time in the series' timezone on each occurrence's own date), `durationMinutes`, `providerId`. Each is checked and changed as PATCH /scheduling/appointments/{id} reschedules one: its id and manage link stay, its reminders are re-planned, `appointment.rescheduled` is recorded; past, completed, cancelled and no-show occurrences never change. One transaction with `series.updated`. Conflicts as on create (`reject`: 409 `series_conflicts`, nothing changed; `skip`: those stay where they are and are listed in `conflicts`). A single occurrence changes through PATCH /scheduling/appointments/{id}.",
  })
  @ApiOkResponse({ type: SeriesOutcomeDto })
  @ApiErrors('series_conflicts')
  // Written out so that the optional `from` and `changes.providerId` are not pre-filled with ids that name nothing.
  @ApiBody({
    type: UpdateSeriesDto,
    examples: { allLater: { summary: 'Every occurrence half an hour later', value: { scope: 'all', changes: { localTime: '09:30' } } } },
  })
  update(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: UpdateSeriesDto): Promise<SeriesOutcomeDto> {
    return this.series.update(auth, id, body);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @Idempotent()
  @Audited('series.cancel')
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'cancelSeries',
    summary: 'Cancel the occurrences of a series',
    description:
      'Cancels each scheduled or confirmed occurrence in scope that has not started (`all`, or `following` from the occurrence whose appointmentId is `from`), each as a single cancel does (`appointment.cancelled`, its reminders cancelled), in one transaction. The series becomes `cancelled` (`series.cancelled`) when the scope starts at its first occurrence; otherwise `series.updated`.',
  })
  @ApiOkResponse({ type: SeriesDto })
  @ApiBody({ type: CancelSeriesDto, examples: { all: { summary: 'Every occurrence still to come', value: { scope: 'all' } } } })
  cancel(@CurrentAuth() auth: AuthContext, @IdParam() id: string, @Body() body: CancelSeriesDto): Promise<SeriesDto> {
    return this.series.cancel(auth, id, body);
  }
}
