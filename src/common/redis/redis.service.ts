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

type MessageHandler = (message: string) => void;

/**
 * The app's Redis connections: one for commands, one for pub/sub. Commands fail at once while Redis is
 * away (no offline queue), so requests answer 503 instead of hanging; the connections keep reconnecting.
 */
@Injectable()
export class RedisService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(RedisService.name);
  readonly client: Redis;
  private readonly subscriber: Redis;
  private readonly handlers = new Map<string, MessageHandler[]>();
  private readonly reconnectListeners: (() => void)[] = [];
  private subscribed = false;

  constructor(private readonly config: AppConfig) {
    const options: RedisOptions = {
      ...redisOptionsFromUrl(config.redisUrl),
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 2000,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    };
    this.client = new Redis({ ...options, connectionName: 'pm-commands' });
    this.subscriber = new Redis({ ...options, connectionName: 'pm-events', enableOfflineQueue: true });
    this.client.on('error', (err: Error) => this.logger.warn(`redis: ${err.message}`));
    this.subscriber.on('error', () => undefined);
    this.subscriber.on('close', () => (this.subscribed = false));
    this.subscriber.on('ready', () => {
      void this.resubscribe();
    });
    this.subscriber.on('message', (channel: string, message: string) => {
      for (const handler of this.handlers.get(channel) ?? []) handler(message);
    });
  }

  async onModuleInit(): Promise<void> {
    await Promise.all([this.client.connect(), this.subscriber.connect()]);
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([this.client.quit(), this.subscriber.quit()]);
  }

  /** Namespaced key: every key this service writes starts with REDIS_PREFIX. */
  key(...parts: string[]): string {
    return [this.config.redis.prefix, ...parts].join(':');
  }

  /** True while pub/sub messages are being received; caches that rely on them must not trust themselves otherwise. */
  get listening(): boolean {
    return this.subscribed;
  }

  /** Calls `onReconnect` whenever the subscription is re-established (messages may have been missed). */
  async subscribe(channel: string, handler: MessageHandler, onReconnect?: () => void): Promise<void> {
    const name = this.key(channel);
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), handler]);
    if (onReconnect) this.reconnectListeners.push(onReconnect);
    if (this.subscriber.status === 'ready') {
      await this.subscriber.subscribe(name);
      this.subscribed = true;
    }
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.client.publish(this.key(channel), message);
  }

  private async resubscribe(): Promise<void> {
    const channels = [...this.handlers.keys()];
    if (channels.length) await this.subscriber.subscribe(...channels);
    this.subscribed = true;
    for (const listener of this.reconnectListeners) listener();
  }
}
