import { Module } from '@nestjs/common';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
import { MessagingModule } from '../messaging';
import { ReminderSender } from './reminders/reminder-send.processor';
import { SchedulingModule } from './scheduling.module';

/** The reminder send job's handler; imported by WorkersModule. */
@Module({
  imports: [SchedulingModule, PatientsModule, MessagingModule, EventsModule],
  providers: [ReminderSender],
})
export class SchedulingWorkersModule {}
