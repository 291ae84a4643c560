import { Module } from '@nestjs/common';
import { SequenceStepsProcessor } from './sequence-steps.processor';
import { SequenceSweep } from './sequence-sweep';
import { SequencesModule } from './sequences.module';

/** The step job's handler and the sweep of lost step jobs; imported by WorkersModule. */
@Module({
  imports: [SequencesModule],
  providers: [SequenceStepsProcessor, SequenceSweep],
})
export class SequencesWorkersModule {}
