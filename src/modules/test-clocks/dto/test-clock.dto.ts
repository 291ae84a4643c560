import { ApiProperty } from '@nestjs/swagger';
import { exampleFromNow } from '../../../common/http/openapi/example-dates';
import { IsInstant } from '../../scheduling';

export class TestClockDto {
  /** The test clock's time: real time + offsetMs. */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(1, '09:00') })
  now!: string;

  /** How far the clock runs ahead of real time; 0: real time. */
  @ApiProperty({ type: 'integer', minimum: 0, example: 86_400_000 })
  offsetMs!: number;
}

export class AdvanceTestClockDto {
  /** The time to move the clock to: not before its now, at most 730 days past real time. */
  @ApiProperty({ format: 'date-time', ...exampleFromNow(1, '09:00') })
  @IsInstant()
  to!: string;
}

/** How many pieces of time-based work an advance ran, by kind. */
export class TestClockRunDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Reminder send jobs run (sent, skipped or suppressed as their rules say)' })
  reminders!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Sequence steps run' })
  sequenceSteps!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Booking holds expired' })
  holdsExpired!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Waitlist offers expired' })
  offersExpired!: number;
}

export class TestClockAdvancedDto extends TestClockDto {
  @ApiProperty({ type: TestClockRunDto })
  ran!: TestClockRunDto;
}
