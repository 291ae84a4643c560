import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../../common/auth/current-auth.decorator';
import { Authenticated } from '../../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../../common/auth/auth.types';
import { pageRequest } from '../../../common/http/lists/pagination';
import { dateFromNow } from '../../../common/http/openapi/example-dates';
import { ApiErrors } from '../../../common/http/openapi/openapi';
import { IdParam } from '../../../common/http/requests/id-param';
import { Created } from '../../../common/http/responses/response-headers';
import { Idempotent } from '../../../common/idempotency/idempotent.decorator';
import { CreateWaitlistEntryDto, ListWaitlistQueryDto, WaitlistEntryDto, WaitlistEntryListDto } from './dto/waitlist.dto';
import { WaitlistService } from './waitlist.service';

@ApiTags('Scheduling')
@Controller('scheduling/waitlist')
export class WaitlistController {
  constructor(private readonly waitlist: WaitlistService) {}

  @Post()
  @Idempotent()
  @Created((entry: WaitlistEntryDto) => ['scheduling', 'waitlist', entry.id])
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'createWaitlistEntry',
    summary: 'Put a patient on the waitlist for a slot of an appointment type',
    description:
      "201 with the entry (status `waiting`) and Location. Creating it offers nothing: time freed later does (an appointment cancelled or moved away, time off removed, another patient's offer declined or expired). The oldest waiting entry that fits a bookable slot of its type in that time (its providers, date bounds and windows in the provider's local time; with `appointmentId`, only earlier than that appointment, with its provider) is offered it: a hold for the type's `waitlistOfferMinutes` and a message (kind `waitlist_offer`, by the type's notice channels) with the link `/public/waitlist-offers/{token}`. A second waiting entry for the same patient and type is 409 `waitlist_entry_exists`.",
  })
  @ApiCreatedResponse({ type: WaitlistEntryDto, headers: { Location: { description: 'The entry URL', schema: { type: 'string' } } } })
  @ApiErrors('waitlist_entry_exists')
  @ApiBody({
    type: CreateWaitlistEntryDto,
    // Written out so that the optional ids (providerIds, appointmentId) are left out: the type's providers, a new booking.
    examples: {
      weekdayMornings: {
        summary: 'Any provider of the type, weekday mornings within two weeks',
        value: {
          patientId: '0193a5a8-7f3e-7c1a-9d52-3f0c8e1b2a40',
          appointmentTypeId: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a60',
          earliestDate: dateFromNow(0),
          latestDate: dateFromNow(14),
          windows: [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start: '08:00', end: '12:00' })),
        },
      },
    },
  })
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateWaitlistEntryDto): Promise<WaitlistEntryDto> {
    return this.waitlist.create(auth, body);
  }

  @Get()
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({ operationId: 'listWaitlistEntries', summary: 'List waitlist entries', description: 'Newest first.' })
  @ApiOkResponse({ type: WaitlistEntryListDto })
  list(@CurrentAuth() auth: AuthContext, @Query() query: ListWaitlistQueryDto): Promise<WaitlistEntryListDto> {
    return this.waitlist.list(auth, query, pageRequest(query));
  }

  @Get(':id')
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({ operationId: 'getWaitlistEntry', summary: 'Read a waitlist entry, with its offers' })
  @ApiOkResponse({ type: WaitlistEntryDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<WaitlistEntryDto> {
    return this.waitlist.get(auth, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'cancelWaitlistEntry',
    summary: 'Take a patient off the waitlist',
    description:
      'The entry becomes `cancelled`; a pending offer is withdrawn (`expired`) and its hold released, which frees that time for the next entry. A booked or cancelled entry stays as it is (204).',
  })
  @ApiNoContentResponse({ description: 'Cancelled' })
  cancel(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<void> {
    return this.waitlist.cancel(auth, id);
  }
}
