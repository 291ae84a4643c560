import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../../events';
import { EmailModule } from '../email.module';
import { EnrollmentsRepository } from './enrollments.repository';
import { EmailSequenceEntity } from './entities/email-sequence.entity';
import { SequenceEnrollmentEntity } from './entities/sequence-enrollment.entity';
import { SequenceStepJobs } from './sequence-step-jobs.service';
import { SequenceSteps } from './sequence-steps.service';
import { SequencesController } from './sequences.controller';
import { SequencesRepository } from './sequences.repository';
import { SequencesService } from './sequences.service';

/**
 * Email sequences and enrolments, on top of EmailModule (templates for the steps, EmailMessagesService.queue
 * for each step's message). Its own module rather than part of EmailModule, which it depends on; the
 * step job's handler runs in SequencesWorkersModule.
 */
@Module({
  imports: [TypeOrmModule.forFeature([EmailSequenceEntity, SequenceEnrollmentEntity]), EmailModule, EventsModule],
  controllers: [SequencesController],
  providers: [SequencesRepository, EnrollmentsRepository, SequencesService, SequenceSteps, SequenceStepJobs],
  exports: [SequencesService, SequenceSteps, SequenceStepJobs],
})
export class SequencesModule {}
