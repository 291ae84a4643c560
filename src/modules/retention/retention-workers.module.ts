import { Module } from '@nestjs/common';
import { AuditPartitionsModule } from '../audit/audit-partitions.module';
import { EmailModule } from '../email/email.module';
import { EventsModule } from '../events/events.module';
import { RetentionSweeper } from './retention.sweeper';

/** The retention sweeps; imported by WorkersModule. */
@Module({
  imports: [AuditPartitionsModule, EventsModule, EmailModule],
  providers: [RetentionSweeper],
  exports: [RetentionSweeper],
})
export class RetentionWorkersModule {}
