import { Module } from '@nestjs/common';
import { MessageSender } from '../../common/messaging';
import { SmsModule } from './sms.module';
import { SmsChannel, SmsSendProcessor } from './sms-send.processor';

/** The send job's handler; imported by WorkersModule. */
@Module({
  imports: [SmsModule],
  providers: [MessageSender, SmsChannel, SmsSendProcessor],
})
export class SmsWorkersModule {}
