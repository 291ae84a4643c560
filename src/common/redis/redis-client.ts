import Redis, { Cluster, ClusterOptions, RedisOptions } from 'ioredis';
import { ConfigError } from '../../config/env';
import type { RedisSettings } from '../../config/redis.config';

/** A connection to the app's Redis: one server, or a Redis Cluster (REDIS_CLUSTER_NODES). */
export type RedisClient = Redis | Cluster;

/** ioredis options from a redis:// URL; BullMQ takes the same shape. */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...credentialsFromUrl(u),
    db: u.pathname && u.pathname !== '/' ? Number(u.pathname.slice(1)) : 0,
  };
}

/** What a URL says about every node of a cluster: who we are and whether to speak TLS. */
function credentialsFromUrl(u: URL): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  return {
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
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

/** What a connection does, as ioredis options for one server; a cluster gets their equivalent. */
export type RedisClientOptions = Omit<RedisOptions, 'host' | 'port' | 'path' | 'db' | 'username' | 'password' | 'tls' | 'sentinels'>;

/** A cluster's nodes take only the credentials and TLS of REDIS_URL, if it is set. */
function clusterCredentials(settings: RedisSettings): Pick<RedisOptions, 'username' | 'password' | 'tls'> {
  return settings.url ? credentialsFromUrl(new URL(settings.url)) : {};
}

/**
 * Every Redis connection the app makes itself: to the one server of REDIS_URL, or to the cluster of
 * REDIS_CLUSTER_NODES with the same behaviour while it is away. A cluster client keeps one connection per
 * node and sends each command to the node of its key's slot; the options that say what happens while Redis
 * is unreachable (offline queue, reconnection) are the cluster client's, the rest each node connection's.
 */
export function createRedisClient(settings: RedisSettings, options: RedisClientOptions): RedisClient {
  if (!settings.clusterNodes) {
    if (!settings.url) throw new ConfigError('REDIS_URL has not been resolved');
    return new Redis({ ...redisOptionsFromUrl(settings.url), ...options });
  }
  const { lazyConnect, enableOfflineQueue, enableAutoPipelining, retryStrategy, ...perNode } = options;
  // An option left undefined takes the cluster client's default.
  const cluster: ClusterOptions = {
    lazyConnect,
    enableOfflineQueue,
    enableAutoPipelining,
    clusterRetryStrategy: retryStrategy,
    // A failed ready check (a cluster still agreeing on its slots after a restart) makes the client reconnect
    // but leaves the pending connect() unsettled, and BullMQ awaits that when it resets a worker's blocking
    // connection: the worker would stop for good. Without it, commands meet CLUSTERDOWN meanwhile and retry.
    enableReadyCheck: false,
    // Nodes that just came back may redirect a slot back and forth for a moment: give them time to agree.
    retryDelayOnMoved: 100,
    redisOptions: { ...clusterCredentials(settings), ...perNode },
  };
  return new Cluster(settings.clusterNodes, cluster);
}

/**
 * The connection that listens for pub/sub messages. To a cluster it is a plain connection to one seed node,
 * the next one at each reconnection: every node passes on every message, and the loss of this connection is
 * seen at once, whereas a cluster client moves its subscription to another node without a word (messages
 * sent meanwhile are missed, and a key cache kept fresh by them must know).
 */
export function createSubscriberClient(settings: RedisSettings, options: RedisClientOptions): Redis {
  const seeds = settings.clusterNodes;
  if (!seeds) return createRedisClient(settings, options) as Redis;
  const redis: Redis = new Redis({
    ...seeds[0],
    ...clusterCredentials(settings),
    ...options,
    retryStrategy: (attempt) => {
      // The connector reads the address from these options at each attempt.
      Object.assign(redis.options, seeds[attempt % seeds.length]);
      return options.retryStrategy?.(attempt);
    },
  });
  return redis;
}
