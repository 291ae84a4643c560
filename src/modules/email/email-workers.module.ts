import { Module } from '@nestjs/common';
import { EmailModule } from './email.module';
import { EmailSender } from './email-sender';

/** The send job's handler; imported by WorkersModule. */
@Module({
  imports: [EmailModule],
  providers: [EmailSender],
})
export class EmailWorkersModule {}
