import { Module } from '@nestjs/common';
import { QueueWorkersModule } from './common/queue/queue-workers.module';
import { SequencesWorkersModule } from './modules/email/sequences/sequences-workers.module';
import { MessagingWorkersModule } from './modules/messaging/messaging-workers.module';
import { PatientsWorkersModule } from './modules/patients/patients-workers.module';
import { SchedulingWorkersModule } from './modules/scheduling/scheduling-workers.module';
import { RetentionWorkersModule } from './modules/retention/retention-workers.module';
import { WebhooksWorkersModule } from './modules/webhooks/webhooks-workers.module';

/**
 * The queue processors. Imported by the API process unless WORKERS=off, and by dist/worker.js alone.
 * Each domain module that owns jobs adds its processor module here (its queue and jobs go in
 * src/common/queue/queues.ts).
 */
@Module({
  imports: [
    QueueWorkersModule,
    PatientsWorkersModule,
    WebhooksWorkersModule,
    MessagingWorkersModule,
    SequencesWorkersModule,
    RetentionWorkersModule,
    SchedulingWorkersModule,
  ],
})
export class WorkersModule {}
