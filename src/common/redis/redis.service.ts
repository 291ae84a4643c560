import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis, { RedisOptions } from 'ioredis';
import { AppConfig } from '../../config/app-config';

/** ioredis options from a redis:// URL; BullMQ takes the same shape. */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === 'rediss:' ? {} : undefined,
  };
}

/**
 * The app's Redis connection for commands. Commands fail at once while Redis is away (no offline queue),
 * so requests answer 503 instead of hanging; the connection keeps reconnecting in the background.
 */
@Injectable()
export class RedisService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RedisService.name);
  readonly client: Redis;

  constructor(private readonly config: AppConfig) {
    this.client = new Redis({
      ...redisOptionsFromUrl(config.redisUrl),
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 2000,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
      connectionName: 'practice-api',
    });
    this.client.on('error', (err: Error) => this.logger.warn(`redis: ${err.message}`));
  }

  async onModuleInit(): Promise<void> {
    await this.client.connect();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client.quit().catch(() => undefined);
  }

  /** Namespaced key: every key this service writes starts with REDIS_PREFIX. */
  key(...parts: string[]): string {
    return [this.config.redis.prefix, ...parts].join(':');
  }
}
