import { Module } from '@nestjs/common';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
import { MessagingModule } from '../messaging';
import { ReminderDueRepository } from './reminder-due.repository';
import { ReminderSender } from './reminder-send.processor';
import { ReminderSweep } from './reminder.sweep';
import { SchedulingModule } from './scheduling.module';

/** The reminder sweep and the send job's handler; imported by WorkersModule. */
@Module({
  imports: [SchedulingModule, PatientsModule, MessagingModule, EventsModule],
  providers: [ReminderSender, ReminderSweep, ReminderDueRepository],
})
export class SchedulingWorkersModule {}
