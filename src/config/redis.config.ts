import { IsOptional, Matches, ValidateBy } from 'class-validator';
import { ConfigError } from './env';

/** A seed node of a Redis Cluster. */
export interface RedisClusterNode {
  host: string;
  port: number;
}

/** REDIS_CLUSTER_NODES as ioredis takes it, or undefined unless every entry is `host:port` (an IPv6 host in brackets). */
export function parseClusterNodes(value: string): RedisClusterNode[] | undefined {
  const nodes: RedisClusterNode[] = [];
  for (const entry of value.split(',').map((e) => e.trim())) {
    const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) return undefined;
    nodes.push({ host: match[1].replace(/^\[(.*)\]$/, '$1'), port });
  }
  return nodes;
}

/** Redis: queues, rate limits and the key cache's evictions. */
export class RedisEnv {
  /** With REDIS_CLUSTER_NODES, only its credentials and TLS (rediss://) count: they apply to every node. */
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// URL' })
  REDIS_URL?: string = undefined;

  /** A Redis Cluster's seed nodes, comma-separated `host:port`; the rest of the cluster is found from them. */
  @IsOptional()
  @ValidateBy({
    name: 'isClusterNodes',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && parseClusterNodes(value) !== undefined,
      defaultMessage: () => 'must be comma-separated host:port pairs',
    },
  })
  REDIS_CLUSTER_NODES?: string = undefined;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_.:-]{1,64}$/, { message: 'must be 1-64 characters of letters, digits, _ . : -' })
  REDIS_PREFIX = 'pm';
}

export interface RedisSettings {
  /** Unset: start-up runs a local redis-server and fills it in (never with a cluster). */
  url?: string;
  /** Set: the app's Redis is this cluster, and `url` gives only the credentials and TLS. */
  clusterNodes?: RedisClusterNode[];
  prefix: string;
}

export function redisSettings(vars: RedisEnv): RedisSettings {
  const clusterNodes = vars.REDIS_CLUSTER_NODES === undefined ? undefined : parseClusterNodes(vars.REDIS_CLUSTER_NODES);
  if (clusterNodes && vars.REDIS_URL && !['', '/', '/0'].includes(new URL(vars.REDIS_URL).pathname)) {
    throw new ConfigError('Invalid configuration: REDIS_URL names a database, but a Redis Cluster has only database 0');
  }
  return { url: vars.REDIS_URL, clusterNodes, prefix: vars.REDIS_PREFIX };
}
