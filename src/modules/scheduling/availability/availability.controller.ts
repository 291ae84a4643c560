import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentAuth } from '../../../common/auth/current-auth.decorator';
import { Authenticated } from '../../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../../common/auth/auth.types';
import { AvailabilityService } from './availability.service';
import { AvailabilityDto, AvailabilityQueryDto } from './dto/availability.dto';

@ApiTags('Scheduling')
@Controller('scheduling/availability')
export class AvailabilityController {
  constructor(private readonly availability: AvailabilityService) {}

  @Get()
  @Authenticated({ scope: 'scheduling:read' })
  @ApiOperation({
    operationId: 'getAvailability',
    summary: 'Free slots',
    description:
      "Slots of `duration` minutes (default 30) inside the provider's working hours, computed in its timezone (correct across daylight-saving changes: each local time at most once, none in a skipped hour), on a grid of the duration or 15 minutes (whichever is smaller), never in the past, never overlapping a scheduled or confirmed appointment, an active hold or time off. A date bound is read in the provider's timezone (endDate includes that day). The range is at most 31 days. Without providerId: every active provider's slots. An inactive provider has none.",
  })
  @ApiOkResponse({ type: AvailabilityDto })
  get(@CurrentAuth() auth: AuthContext, @Query() query: AvailabilityQueryDto): Promise<AvailabilityDto> {
    return this.availability.availability(auth, query);
  }
}
