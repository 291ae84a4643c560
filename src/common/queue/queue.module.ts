import { BullModule } from '@nestjs/bullmq';
import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';

/** BullMQ on the app's Redis, under the app's key prefix. Workers are registered by WorkersModule. */
@Global()
@Module({
  imports: [
    BullModule.forRootAsync({
      inject: [AppConfig],
      useFactory: (config: AppConfig) => ({
        connection: { url: config.redisUrl, maxRetriesPerRequest: null },
        prefix: `${config.redis.prefix}:bull`,
      }),
    }),
  ],
  exports: [BullModule],
})
export class QueueModule {}
