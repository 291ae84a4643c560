import { Module } from '@nestjs/common';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
import { MessagingModule } from '../messaging';
import { ReminderSender } from './reminders/reminder-send.processor';
import { HoldExpirer } from './holds/hold-expiry.processor';
import { SchedulingModule } from './scheduling.module';
import { WaitlistJobs } from './waitlist/waitlist.processor';

/** The reminder send, hold expiry and waitlist jobs' handlers; imported by WorkersModule. */
@Module({
  imports: [SchedulingModule, PatientsModule, MessagingModule, EventsModule],
  providers: [ReminderSender, HoldExpirer, WaitlistJobs],
})
export class SchedulingWorkersModule {}
