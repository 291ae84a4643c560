import { Module } from '@nestjs/common';
import { AuditPartitionsModule } from '../audit';
import { EmailModule } from '../email';
import { EventsModule } from '../events';
import { RetentionSweeper } from './retention.sweep';

/** The retention sweeps; imported by WorkersModule. */
@Module({
  imports: [AuditPartitionsModule, EventsModule, EmailModule],
  providers: [RetentionSweeper],
  exports: [RetentionSweeper],
})
export class RetentionWorkersModule {}
