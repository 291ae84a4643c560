import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../../common/auth/current-auth.decorator';
import { Authenticated } from '../../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../../common/auth/auth.types';
import { dateFromNow } from '../../../common/http/openapi/example-dates';
import { ApiErrors } from '../../../common/http/openapi/openapi';
import { IdParam } from '../../../common/http/requests/id-param';
import { Created } from '../../../common/http/responses/response-headers';
import { Idempotent } from '../../../common/idempotency/idempotent.decorator';
import { CreateHoldDto, HoldDto } from './dto/hold.dto';
import { HoldsService } from './holds.service';

@ApiTags('Scheduling')
@Controller('scheduling/holds')
export class HoldsController {
  constructor(private readonly holds: HoldsService) {}

  @Post()
  @Idempotent()
  @Created((hold: HoldDto) => ['scheduling', 'holds', hold.id])
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'createHold',
    summary: "Hold a provider's time for a while",
    description:
      "201 with the hold (status `active`) and Location. Checked as a booking of the slot would be (working hours, time off, the past, the type's policies, other appointments and holds); refused with 409 `slot_unavailable` and `alternatives` as a booking is. While active the time is booked for everyone else: availability leaves it out, and a booking or another hold overlapping it is 409 `slot_unavailable`; of concurrent holds and bookings of one slot exactly one succeeds. Send exactly one of appointmentTypeId and duration. It expires `ttlSeconds` after it is taken (on the tenant's clock; a test clock's advance expires it) and frees the time at once; book it with `POST /scheduling/book` `{ holdId, patientId }`.",
  })
  @ApiCreatedResponse({ type: HoldDto, headers: { Location: { description: 'The hold URL', schema: { type: 'string' } } } })
  @ApiErrors('slot_unavailable')
  @ApiBody({
    type: CreateHoldDto,
    // Written out so that only one of appointmentTypeId and duration is sent.
    examples: {
      duration: {
        summary: 'A length of your choice',
        value: { providerId: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b', datetime: dateFromNow(0, '15:30'), duration: 30, ttlSeconds: 300 },
      },
      appointmentType: {
        summary: 'An appointment type (its length and policies)',
        value: {
          providerId: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b',
          datetime: dateFromNow(3, '15:00'),
          appointmentTypeId: '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a60',
        },
      },
    },
  })
  create(@CurrentAuth() auth: AuthContext, @Body() body: CreateHoldDto): Promise<HoldDto> {
    return this.holds.create(auth, body);
  }

  @Get(':id')
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({
    operationId: 'getHold',
    summary: 'Read a hold',
    description: 'A hold past its expiresAt answers `expired` at once.',
  })
  @ApiOkResponse({ type: HoldDto })
  get(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<HoldDto> {
    return this.holds.get(auth, id);
  }

  @Delete(':id')
  @HttpCode(204)
  @Authenticated({ scope: 'scheduling:write' })
  @ApiOperation({
    operationId: 'releaseHold',
    summary: 'Release a hold',
    description:
      'The hold becomes `released` and its time is free at once. Releasing a released or expired hold changes nothing (204); a booked one is 409 `hold_consumed`.',
  })
  @ApiNoContentResponse({ description: 'Released' })
  @ApiErrors('hold_consumed')
  release(@CurrentAuth() auth: AuthContext, @IdParam() id: string): Promise<void> {
    return this.holds.release(auth, id);
  }
}
