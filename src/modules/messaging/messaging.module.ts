import { Module } from '@nestjs/common';
import { EmailModule } from '../email';
import { SmsModule } from '../sms';
import { MessagingService } from './messaging.service';

/** Queueing a message of any channel, above the email and SMS modules (see MessagingService). */
@Module({
  imports: [EmailModule, SmsModule],
  providers: [MessagingService],
  exports: [MessagingService],
})
export class MessagingModule {}
