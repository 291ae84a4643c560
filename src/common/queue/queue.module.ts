import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import type { ConnectionOptions, QueueOptions } from 'bullmq';
import { AppConfig } from '../../config/app-config';
import { createRedisClient, reconnectDelayMs, REDIS_COMMAND_TIMEOUT_MS, RedisClient } from '../redis/redis-client';
import { JobOutbox } from './job-outbox';
import { JobQueue } from './job-queue';
import { QueueConnections } from './queue-connections';
import { bullPrefix } from './queue-keys';
import { QueueName } from './queues';

/**
 * The workers' BullMQ connection: they retry every command until Redis answers. To one server BullMQ opens
 * its connections from these options; to a cluster it copies the (unconnected) cluster client given here.
 */
export function workerConnection(config: AppConfig): ConnectionOptions {
  if (!config.redis.clusterNodes) return { url: config.redisUrl, maxRetriesPerRequest: null, retryStrategy: reconnectDelayMs };
  return createRedisClient(config.redis, { lazyConnect: true, maxRetriesPerRequest: null, retryStrategy: reconnectDelayMs });
}

/**
 * The producers' connection, one for every queue: unlike a worker's, it fails a command at once while
 * Redis is away (no offline queue, as BullMQ advises for producers) and after REDIS_COMMAND_TIMEOUT_MS
 * when Redis stops answering, so nothing waits on Redis for long; what it could not add stays in the job
 * outbox for the relay.
 */
function producerConnection(config: AppConfig): RedisClient {
  const redis = createRedisClient(config.redis, {
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
 * Every producer queue's options. BullMQ checks the server's version with an INFO when a queue is made, and
 * a queue whose check timed out (Redis busy for a second, or this process stalled while starting) refuses
 * every later add for the life of the process. The workers check the version on their own connections,
 * which wait for Redis.
 */
export function producerOptions(config: AppConfig): Pick<QueueOptions, 'connection' | 'skipVersionCheck'> {
  return { connection: producerConnection(config), skipVersionCheck: true };
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
      useFactory: producerOptions,
    }),
    BullModule.registerQueueAsync(
      ...Object.values(QueueName).map((name) => ({
        name,
        inject: [AppConfig],
        useFactory: (config: AppConfig) => ({ prefix: bullPrefix(config.redis, name) }),
      })),
    ),
  ],
  providers: [JobQueue, JobOutbox, QueueConnections],
  exports: [JobQueue, JobOutbox],
})
export class QueueModule {}
