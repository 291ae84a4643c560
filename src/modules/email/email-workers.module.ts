import { Module } from '@nestjs/common';
import { MessageSender } from '../../common/messaging';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
import { EmailModule } from './email.module';
import { EmailChannel, EmailSendProcessor } from './email-send.processor';

/** The send job's handler; imported by WorkersModule. */
@Module({
  imports: [EmailModule, PatientsModule, EventsModule],
  providers: [MessageSender, EmailChannel, EmailSendProcessor],
})
export class EmailWorkersModule {}
