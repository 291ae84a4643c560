import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CryptoModule } from './common/crypto/crypto.module';
import { ObservabilityModule } from './common/observability/dependency-status';
import { AppLogger, createLog } from './common/observability/logger';
import { QueueModule } from './common/queue/queue.module';
import { RedisModule } from './common/redis/redis.module';
import { clock } from './common/time/clock';
import { TrafficModule } from './common/traffic/traffic.module';
import { IdempotencyModule } from './common/idempotency/idempotency.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { dataSourceOptions } from './database/database-options';

export interface CoreOptions {
  /** 2 (stderr) for the CLI, whose stdout is its answer. */
  logDestination?: 1 | 2;
}

/** What every entry point shares: config, logs, PostgreSQL (and its Transactions), encryption, Redis, the queues and the rate limiter. */
@Module({})
export class CoreModule {
  static forRoot(config: AppConfig, options: CoreOptions = {}): DynamicModule {
    // Every entry point (API, worker, CLI, the tests' apps) builds its app through here.
    clock.setOffsetMs(config.clock.offsetMs);
    return {
      module: CoreModule,
      imports: [
        ConfigModule.forRoot(config),
        TypeOrmModule.forRootAsync({
          inject: [AppConfig],
          useFactory: (c: AppConfig) => ({
            ...dataSourceOptions(c.databaseUrl, c.database.namedStatements),
            retryAttempts: 3,
            retryDelay: 500,
          }),
        }),
        DatabaseModule,
        ObservabilityModule,
        CryptoModule,
        RedisModule,
        QueueModule,
        TrafficModule,
        IdempotencyModule,
      ],
      // One log per app: Nest's lines (app.useLogger) and the request lines (app.factory.ts) go to it.
      providers: [
        { provide: AppLogger, useFactory: () => new AppLogger(createLog(config.log.level, config.log.format, options.logDestination)) },
      ],
      exports: [AppLogger],
    };
  }
}
