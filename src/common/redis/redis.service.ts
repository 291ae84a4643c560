import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis, { Cluster } from 'ioredis';
import { AppConfig } from '../../config/app-config';
import { DependencyStatus } from '../observability/dependency-status';
import {
  createRedisClient,
  createSubscriberClient,
  RedisClient,
  RedisClientOptions,
  REDIS_COMMAND_TIMEOUT_MS,
  reconnectDelayMs,
} from './redis-client';

type MessageHandler = (message: string) => void;

/**
 * The app's Redis connections: one for commands, one for pub/sub. Commands fail at once while Redis is
 * away (no offline queue), so requests answer 503 instead of hanging; both connections keep reconnecting.
 */
@Injectable()
export class RedisService implements OnModuleInit, OnApplicationShutdown {
  readonly client: RedisClient;
  private readonly subscriber: Redis;
  private readonly handlers = new Map<string, MessageHandler[]>();
  private readonly resubscribed: (() => void)[] = [];
  private subscribed = false;

  constructor(
    private readonly config: AppConfig,
    dependencies: DependencyStatus,
  ) {
    const options: RedisClientOptions = {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 2000,
      retryStrategy: reconnectDelayMs,
    };
    // Auto-pipelining sends the commands of one event-loop turn (the rate-limit scripts of the requests
    // that arrived together) in one write, which Redis reads and answers in one go: it halves Redis's CPU per
    // request under load (bench/README.md) and leaves each script atomic.
    this.client = createRedisClient(config.redis, {
      ...options,
      connectionName: 'practice-api',
      enableAutoPipelining: true,
      commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    });
    this.subscriber = createSubscriberClient(config.redis, { ...options, connectionName: 'practice-api-events', enableOfflineQueue: true });
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
    const name = this.key(channel);
    if (!(this.client instanceof Cluster)) return this.client.publish(name, message);
    // A cluster passes the message on to every node's subscribers, but PUBLISH counts only those of the node
    // that took it: the count is every node's, taken just before. A node that does not answer has none.
    const counts = await Promise.allSettled(this.client.nodes('all').map((node) => node.pubsub('NUMSUB', name)));
    await this.client.publish(name, message);
    return counts.reduce((sum, count) => sum + (count.status === 'fulfilled' ? Number(count.value[1]) : 0), 0);
  }

  private async resubscribe(): Promise<void> {
    const channels = [...this.handlers.keys()];
    try {
      if (channels.length) await this.subscriber.subscribe(...channels);
    } catch {
      // The connection dropped meanwhile: its next `ready` subscribes again.
      return;
    }
    this.subscribed = true;
    for (const listener of this.resubscribed) listener();
  }
}
