import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import type { ConnectionOptions } from 'bullmq';
import Redis from 'ioredis';
import { AppConfig } from '../../config/app-config';
import { reconnectDelayMs, REDIS_COMMAND_TIMEOUT_MS, redisOptionsFromUrl } from '../redis/redis.service';
import { JobOutbox } from './job-outbox';
import { JobQueue } from './job-queue';
import { QueueConnections } from './queue-connections';
import { QueueName } from './queues';

/** The workers' BullMQ connection and key prefix: the app's Redis, under the app's prefix. */
export function bullConnection(config: AppConfig): { connection: ConnectionOptions; prefix: string } {
  return {
    connection: { url: config.redisUrl, maxRetriesPerRequest: null, retryStrategy: reconnectDelayMs },
    prefix: `${config.redis.prefix}:bull`,
  };
}

/**
 * The producers' connection, one for every queue: unlike a worker's, it fails a command at once while
 * Redis is away (no offline queue, as BullMQ advises for producers) and after REDIS_COMMAND_TIMEOUT_MS
 * when Redis stops answering, so nothing waits on Redis for long; what it could not add stays in the job
 * outbox for the relay.
 */
function producerConnection(config: AppConfig): Redis {
  const redis = new Redis({
    ...redisOptionsFromUrl(config.redisUrl),
    connectionName: 'practice-jobs',
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: reconnectDelayMs,
  });
  // The outage is seen through failed adds and the readiness check; the connection keeps reconnecting.
  redis.on('error', () => undefined);
  return redis;
}

/**
 * Every queue of QUEUES, for producers: a module records jobs with `JobOutbox` in the transaction they
 * must follow. Workers are started by QueueWorkersModule (imported through WorkersModule).
 */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({ ...bullConnection(config), connection: producerConnection(config) }),
    }),
    BullModule.registerQueue(...Object.values(QueueName).map((name) => ({ name }))),
  ],
  providers: [JobQueue, JobOutbox, QueueConnections],
  exports: [JobQueue, JobOutbox],
})
export class QueueModule {}
