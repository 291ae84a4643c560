import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import type { ConnectionOptions } from 'bullmq';
import { AppConfig } from '../../config/app-config';
import { JobQueue } from './job-queue';
import { QueueConnections } from './queue-connections';
import { QueueName } from './queues';

/** BullMQ's connection and key prefix: the app's Redis, under the app's prefix. */
export function bullConnection(config: AppConfig): { connection: ConnectionOptions; prefix: string } {
  return { connection: { url: config.redisUrl, maxRetriesPerRequest: null }, prefix: `${config.redis.prefix}:bull` };
}

/**
 * Every queue of QUEUES, for producers: inject `JobQueue` and add jobs by name. Workers are started by
 * QueueWorkersModule (imported through WorkersModule).
 */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({ inject: [AppConfig], useFactory: (config: AppConfig) => bullConnection(config) }),
    BullModule.registerQueue(...Object.values(QueueName).map((name) => ({ name }))),
  ],
  providers: [JobQueue, QueueConnections],
  exports: [JobQueue],
})
export class QueueModule {}
