import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Audited } from '../../common/audit/audited.decorator';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import { IdParam } from '../../common/http/requests/id-param';
import { pageRequest } from '../../common/http/lists/pagination';
import { NoStore } from '../../common/http/responses/response-headers';
import { EventDto, EventListDto, ListEventsQueryDto } from './dto/event.dto';
import { EventsService } from './events.service';

@ApiTags('Events')
@Controller('events')
@NoStore() // events carry patient data
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @Authenticated({ scope: 'webhooks:read' })
  @Audited('event.list')
  @ApiOperation({
    operationId: 'listEvents',
    summary: 'List events, newest first',
    description:
      'Events carry the resource as the API returned it when the event happened. Without the `patients:read` scope a key sees patients as `{ id, firstName, lastName, email, phone }`: the data of `patient.*` events and the patient embedded in others (appointments). Webhook deliveries, to endpoints an OWNER or ADMIN registered, carry the whole event. Filter by `type` and a `from`/`to` range. Events are kept for EVENTS_RETENTION_DAYS (default 30) after they happened: older ones, with their webhook deliveries and delivery attempts, are deleted.',
  })
  @ApiOkResponse({ type: EventListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListEventsQueryDto): Promise<EventListDto> {
    return this.events.list(auth, query, pageRequest(query));
  }

  @Get(':id')
  @Authenticated({ scope: 'webhooks:read' })
  @Audited('event.read')
  @ApiOperation({
    operationId: 'getEvent',
    summary: 'Read an event',
    description:
      'Patients in it as in `GET /events`: whole with the `patients:read` scope, else `{ id, firstName, lastName, email, phone }`.',
  })
  @ApiOkResponse({ type: EventDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<EventDto> {
    return this.events.get(auth, id);
  }
}
