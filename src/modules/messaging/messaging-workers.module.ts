import { Module } from '@nestjs/common';
import { MessageSender } from '../../common/messaging';
import { EmailChannel, EmailModule } from '../email';
import { EventsModule } from '../events';
import { PatientsModule } from '../patients';
import { SmsChannel, SmsModule } from '../sms';
import { MessageSendProcessor } from './message-send.processor';

/** The send jobs of every channel, through the one sender; imported by WorkersModule. */
@Module({
  imports: [EmailModule, SmsModule, PatientsModule, EventsModule],
  providers: [MessageSender, EmailChannel, SmsChannel, MessageSendProcessor],
})
export class MessagingWorkersModule {}
