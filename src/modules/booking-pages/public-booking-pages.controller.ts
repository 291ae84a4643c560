import { Body, Controller, Get, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { acceptsHtml } from '../../common/http/responses/html-page';
import { auditAs, Audited } from '../../common/audit/audited.decorator';
import { Public } from '../../common/auth/route-policy.decorator';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';
import { IdParam } from '../../common/http/requests/id-param';
import { dateFromNow } from '../../common/http/openapi/example-dates';
import { ApiErrors } from '../../common/http/openapi/openapi';
import { Created, NoStore } from '../../common/http/responses/response-headers';
import {
  PublicAvailabilityDto,
  PublicAvailabilityQueryDto,
  PublicBookingDto,
  PublicBookingResultDto,
  PublicHoldDto,
  PublicHoldResultDto,
  PublicSchedulerDto,
  PublicSchedulerPageQueryDto,
} from './dto/public-scheduler.dto';
import { BookingPageService } from './booking-page.service';
import { PublicBookingCaller } from './public-booking-caller';
import { PublicBookingService } from './public-booking.service';

const PUBLIC =
  'No API key. Limited per client IP (RATE_LIMIT_IP_PER_SECOND / _PER_HOUR; 429 with Retry-After). An unknown or inactive scheduler answers 404.';

/** The public booking page of a scheduler: no key, limited per client IP by the global RateLimitGuard. */
@ApiTags('Schedulers')
@Controller('public/schedulers')
@Public()
// Each view is counted, so nothing in between may answer it from a cache.
@NoStore()
export class PublicBookingPagesController {
  constructor(
    private readonly booking: PublicBookingService,
    private readonly page: BookingPageService,
  ) {}

  @Get(':id')
  @ApiOperation({
    operationId: 'getPublicScheduler',
    summary: 'A booking page (counts a view)',
    description: `The page's name, description, appointment length and type, and its active providers (name and timezone only). Each answer counts one view. With \`Accept: text/html\` (a browser), the hosted booking page instead: free times by day for a week (\`from\`, a date) of one provider (\`provider\`, a provider's id; the page's first by default), each a button that holds the time, then a details form and a confirmation with the manage link; it works without script, may be framed only by practice settings \`embedOrigins\`, and counts a view when opened without \`provider\` and \`from\`. ${PUBLIC}`,
  })
  @ApiProduces('application/json', 'text/html')
  @ApiOkResponse({ type: PublicSchedulerDto })
  async view(
    @IdParam() id: string,
    @Query() query: PublicSchedulerPageQueryDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PublicSchedulerDto | string> {
    if (!acceptsHtml(request.headers.accept)) return this.booking.view(id);
    const opened = query.provider === undefined && query.from === undefined;
    return this.page.times(reply, opened ? await this.booking.countView(id) : await this.booking.require(id), query);
  }

  @Get(':id/availability')
  @ApiOperation({
    operationId: 'getPublicSchedulerAvailability',
    summary: "A booking page's free slots",
    description: `Slots of the page's duration in which at least one of its active providers is free, by the rules of GET /scheduling/availability (working hours in each provider's timezone, no past, no time off, no overlap); a date bound is read in each provider's timezone; at most 31 days. ${PUBLIC}`,
  })
  @ApiOkResponse({ type: PublicAvailabilityDto })
  async availability(@IdParam() id: string, @Query() query: PublicAvailabilityQueryDto): Promise<PublicAvailabilityDto> {
    return this.booking.slots(await this.booking.require(id), query);
  }

  @Post(':id/holds')
  @Created((hold: PublicHoldResultDto) => ['scheduling', 'holds', hold.holdId])
  @ApiOperation({
    operationId: 'holdPublicScheduler',
    summary: 'Hold a time on a booking page',
    description: `201 with the hold's id and expiry (Location: the hold, for the practice). Keeps datetime for the page's duration and type with providerId (one of the page's providers) or the first of its providers free then, for 300 seconds by the practice's clock; meanwhile the time is booked for everyone else. Book it with \`holdId\` in POST /public/schedulers/{id}/book. Not free: 409 \`slot_unavailable\` with \`alternatives\`, the page's next three free times. ${PUBLIC}`,
  })
  @ApiCreatedResponse({
    type: PublicHoldResultDto,
    headers: { Location: { description: 'The hold URL (needs a key)', schema: { type: 'string' } } },
  })
  @ApiErrors('slot_unavailable')
  // Written out so that the optional providerId (an id the page's answers never show) is not pre-filled.
  @ApiBody({
    type: PublicHoldDto,
    examples: { firstFree: { summary: 'The first provider free then', value: { datetime: dateFromNow(0, '18:00') } } },
  })
  async hold(@IdParam() id: string, @Body() body: PublicHoldDto): Promise<PublicHoldResultDto> {
    return this.booking.hold(await this.booking.require(id), body);
  }

  @Post(':id/book')
  @Idempotent(PublicBookingCaller)
  @Audited('appointment.public_book', { idParam: 'appointmentId' })
  @Created((booking: PublicBookingResultDto) => ['scheduling', 'appointments', booking.id])
  @ApiOperation({
    operationId: 'bookPublicScheduler',
    summary: 'Book through a booking page',
    description: `201 with the appointment's id and time, the provider's name and the patient's manage link (manageUrl; Location: the appointment, for the practice). Books the first of the page's providers free at datetime, for the page's duration and type; or, with \`holdId\` (a hold this page took), the held time with its provider (datetime may then be omitted, else it must be the hold's): an expired or released hold is 410 \`hold_expired\`, a booked one 409 \`hold_consumed\`. The patient is the one with this email in the practice, else a new \`lead\` (an existing patient's record is not changed). Not free: 409 \`slot_unavailable\` with \`alternatives\`, the page's next three free times. Counted in bookingsCount. An \`Idempotency-Key\` (kept per booking page) makes a retry safe: a booking that went through is answered again instead of 409. ${PUBLIC}`,
  })
  @ApiCreatedResponse({
    type: PublicBookingResultDto,
    headers: { Location: { description: 'The appointment URL (needs a key)', schema: { type: 'string' } } },
  })
  @ApiErrors('slot_unavailable', 'hold_consumed', 'hold_expired')
  // Written out so that the optional holdId is not pre-filled with an id that names nothing.
  @ApiBody({
    type: PublicBookingDto,
    examples: {
      datetime: {
        summary: 'A free time of the page',
        value: {
          firstName: 'Ada',
          lastName: 'Lovelace',
          email: 'ada.lovelace@example.com',
          phone: '+44 7400 123456',
          datetime: dateFromNow(0, '14:00'),
        },
      },
    },
  })
  async book(@IdParam() id: string, @Body() body: PublicBookingDto, @Req() request: FastifyRequest): Promise<PublicBookingResultDto> {
    const scheduler = await this.booking.require(id);
    // Keyless: the audit entry is recorded in the scheduler's tenant and mode, without an API key.
    auditAs(request, scheduler);
    return this.booking.book(scheduler, body);
  }
}
