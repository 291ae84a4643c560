import type { RedisSettings } from '../../config/redis.config';
import { QueueName } from './queues';

/**
 * On a Redis Cluster, what puts a queue's keys in one slot: its name as a hash tag. A queue's scripts touch
 * many of its keys at once, which a cluster runs only when they share a slot; a tag per queue (not one for
 * the app) spreads the queues over the cluster's nodes.
 */
export function queueSlotTag(queue: QueueName): string {
  return `{${queue}}`;
}

/** BullMQ's key prefix for a queue: `<REDIS_PREFIX>:bull`, and on a cluster `<REDIS_PREFIX>:bull:{<queue>}`. */
export function bullPrefix(redis: RedisSettings, queue: QueueName): string {
  return redis.clusterNodes ? `${redis.prefix}:bull:${queueSlotTag(queue)}` : `${redis.prefix}:bull`;
}

/**
 * The job outbox's markers (JobOutboxRelay): one, and on a cluster one per queue in its queue's slot, as a
 * node that comes back empty loses only its own queues, and their marker with them.
 */
export function outboxMarkers(redis: RedisSettings): string[] {
  const marker = `${redis.prefix}:job-outbox:marker`;
  return redis.clusterNodes ? Object.values(QueueName).map((queue) => `${marker}:${queueSlotTag(queue)}`) : [marker];
}
