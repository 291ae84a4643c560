import { Module } from '@nestjs/common';
import { EmailModule } from '../email';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
import { SmsModule } from '../sms';
import { ReminderSender } from './reminder-send.processor';
import { SchedulingModule } from './scheduling.module';

/** The reminder send job's handler; imported by WorkersModule. */
@Module({
  imports: [SchedulingModule, PatientsModule, EmailModule, SmsModule, EventsModule],
  providers: [ReminderSender],
})
export class SchedulingWorkersModule {}
