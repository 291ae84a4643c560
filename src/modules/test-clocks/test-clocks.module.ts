import { Module } from '@nestjs/common';
import { TestClocksController } from './test-clocks.controller';
import { TestClocksService } from './test-clocks.service';

/** Each tenant's test-mode clock (`/test-helpers/clock`); BusinessClock, which every rule reads, is global. */
@Module({
  controllers: [TestClocksController],
  providers: [TestClocksService],
})
export class TestClocksModule {}
