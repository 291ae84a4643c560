import { Module } from '@nestjs/common';
import { SequenceStepsProcessor } from './sequence-steps.processor';
import { SequencesModule } from './sequences.module';

/** The step job's handler; imported by WorkersModule. */
@Module({
  imports: [SequencesModule],
  providers: [SequenceStepsProcessor],
})
export class SequencesWorkersModule {}
