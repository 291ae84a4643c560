import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Idempotent } from '../../common/idempotency/idempotent.decorator';
import { Audited } from '../../common/audit/audited.decorator';
import { CurrentAuth } from '../../common/auth/current-auth.decorator';
import { Authenticated } from '../../common/auth/route-policy.decorator';
import type { AuthContext } from '../../common/auth/auth.types';
import { AdvanceTestClockDto, TestClockAdvancedDto, TestClockDto } from './dto/test-clock.dto';
import { TestClocksService } from './test-clocks.service';

const WRITE = { scope: 'settings:write', roles: ['OWNER', 'ADMIN'] } as const;
const TEST_ONLY = 'Test mode only: with a live key it answers 404 `not_found`.';

@ApiTags('Test helpers')
@Controller('test-helpers/clock')
export class TestClocksController {
  constructor(private readonly clocks: TestClocksService) {}

  @Get()
  @Authenticated({ scope: 'settings:read' })
  @ApiOperation({
    operationId: 'getTestClock',
    summary: "Your test mode's clock",
    description: `The time every rule about what is due, allowed or past reads in your test mode (availability, booking and change checks, change windows, reminders, quiet hours, sequence delays, expiries): real time + \`offsetMs\`. It runs on like any clock. Timestamps that record when something happened stay real. ${TEST_ONLY}`,
  })
  @ApiOkResponse({ type: TestClockDto })
  get(@CurrentAuth() auth: AuthContext): Promise<TestClockDto> {
    return this.clocks.get(auth);
  }

  @Post('advance')
  @Idempotent()
  @HttpCode(200)
  @Authenticated({ ...WRITE, roles: [...WRITE.roles] })
  @Audited('test_clock.advance', { resourceId: 'clock' })
  @ApiOperation({
    operationId: 'advanceTestClock',
    summary: 'Move the test clock forward, running the work due by then',
    description: `Answers once every piece of your test mode's time-based work due at or before \`to\` has run, in due order, each with the clock at its due time: reminders (sent, skipped or suppressed as their rules say), sequence steps; \`ran\` counts them. Messages they queue are delivered as usual (captured in test mode). \`to\` must not be before the clock's now and at most 730 days past real time, else 400 \`validation_failed\` naming \`to\`. Two advances of one clock take turns. The work runs on the workers: 503 if they do not finish it within 25 seconds (advance again to go on). ${TEST_ONLY}`,
  })
  @ApiOkResponse({ type: TestClockAdvancedDto })
  advance(@CurrentAuth() auth: AuthContext, @Body() body: AdvanceTestClockDto): Promise<TestClockAdvancedDto> {
    return this.clocks.advance(auth, body.to);
  }

  @Post('reset')
  @Idempotent()
  @ApiBody({ required: false, description: 'No body', schema: { type: 'object', maxProperties: 0 } })
  @HttpCode(200)
  @Authenticated({ ...WRITE, roles: [...WRITE.roles] })
  @Audited('test_clock.reset', { resourceId: 'clock' })
  @ApiOperation({
    operationId: 'resetTestClock',
    summary: 'Put the test clock back on real time',
    description: `Work already done stays done; work not due by real time waits for it. ${TEST_ONLY}`,
  })
  @ApiOkResponse({ type: TestClockDto })
  reset(@CurrentAuth() auth: AuthContext): Promise<TestClockDto> {
    return this.clocks.reset(auth);
  }
}
