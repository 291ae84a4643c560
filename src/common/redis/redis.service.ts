import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis, { RedisOptions } from 'ioredis';
import { AppConfig } from '../../config/app-config';
import { DependencyStatus } from '../observability/dependency-status';

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
 * Every connection of the app retries this often after losing Redis (BullMQ's own default backs off to
 * 20 s), so that everything is back within about a second of Redis returning.
 */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(attempt * 100, 1000);
}

/**
 * How long a command on a connection that a request may wait on (rate limits, adding jobs) may take: a
 * Redis that stops answering without closing the connection fails such commands after this, not never.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;

type MessageHandler = (message: string) => void;

/**
 * The app's Redis connections: one for commands, one for pub/sub. Commands fail at once while Redis is
 * away (no offline queue), so requests answer 503 instead of hanging; both connections keep reconnecting.
 */
@Injectable()
export class RedisService implements OnModuleInit, OnApplicationShutdown {
  readonly client: Redis;
  private readonly subscriber: Redis;
  private readonly handlers = new Map<string, MessageHandler[]>();
  private readonly resubscribed: (() => void)[] = [];
  private subscribed = false;

  constructor(
    private readonly config: AppConfig,
    dependencies: DependencyStatus,
  ) {
    const options: RedisOptions = {
      ...redisOptionsFromUrl(config.redisUrl),
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 2000,
      retryStrategy: reconnectDelayMs,
    };
    // Auto-pipelining sends the commands of one event-loop turn (the rate-limit scripts of the requests
    // that arrived together) in one write, which Redis reads and answers in one go: it halves Redis's CPU per
    // request under load (bench/README.md) and leaves each script atomic.
    this.client = new Redis({
      ...options,
      connectionName: 'practice-api',
      enableAutoPipelining: true,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    });
    this.subscriber = new Redis({ ...options, connectionName: 'practice-api-events', enableOfflineQueue: true });
    // Their errors (one per reconnection attempt during an outage) become one line when Redis goes and one when it is back.
    dependencies.watchRedis(this.client, 'commands');
    dependencies.watchRedis(this.subscriber, 'pubsub');
    for (const event of ['close', 'end', 'reconnecting']) this.subscriber.on(event, () => (this.subscribed = false));
    this.subscriber.on('ready', () => void this.resubscribe());
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

  /** False while the command connection is down: callers with a fallback need not try (and fail) first. */
  get available(): boolean {
    return this.client.status === 'ready';
  }

  /** True while pub/sub messages arrive; a cache kept fresh by messages must not trust itself otherwise. */
  get listening(): boolean {
    return this.subscribed;
  }

  /**
   * Calls `handler` for every message on `channel`, and `onResubscribed` each time the subscription comes
   * back after an interruption (messages may have been missed meanwhile).
   */
  async subscribe(channel: string, handler: MessageHandler, onResubscribed?: () => void): Promise<void> {
    const name = this.key(channel);
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), handler]);
    if (onResubscribed) this.resubscribed.push(onResubscribed);
    if (this.subscriber.status === 'ready') {
      await this.subscriber.subscribe(name);
      this.subscribed = true;
    }
  }

  /** Answers how many subscriptions (on every instance) received the message. */
  async publish(channel: string, message: string): Promise<number> {
    return this.client.publish(this.key(channel), message);
  }

  private async resubscribe(): Promise<void> {
    const channels = [...this.handlers.keys()];
    if (channels.length) await this.subscriber.subscribe(...channels);
    this.subscribed = true;
    for (const listener of this.resubscribed) listener();
  }
}
