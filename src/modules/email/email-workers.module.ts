import { Module } from '@nestjs/common';
import { EmailModule } from './email.module';
import { EmailSender } from './email-sender';
import { EmailSweep } from './email-sweep';

/** The send job's handler and the sweep of lost jobs; imported by WorkersModule. */
@Module({
  imports: [EmailModule],
  providers: [EmailSender, EmailSweep],
})
export class EmailWorkersModule {}
