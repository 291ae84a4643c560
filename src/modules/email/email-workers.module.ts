import { Module } from '@nestjs/common';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
import { EmailModule } from './email.module';
import { EmailSender } from './email-send.processor';

/** The send job's handler; imported by WorkersModule. */
@Module({
  imports: [EmailModule, PatientsModule, EventsModule],
  providers: [EmailSender],
})
export class EmailWorkersModule {}
