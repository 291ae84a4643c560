import { Module } from '@nestjs/common';
import { SmsModule } from './sms.module';
import { SmsSender } from './sms-send.processor';

/** The send job's handler; imported by WorkersModule. */
@Module({
  imports: [SmsModule],
  providers: [SmsSender],
})
export class SmsWorkersModule {}
