import Redis, { Cluster } from 'ioredis';
import { createRedisClient, createSubscriberClient, reconnectDelayMs } from './redis-client';

describe('createRedisClient', () => {
  const nodes = [
    { host: '10.0.0.1', port: 7000 },
    { host: '10.0.0.2', port: 7001 },
  ];
  const behaviour = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    retryStrategy: reconnectDelayMs,
    connectionName: 'practice-api',
  };

  it("connects to REDIS_URL's server when no cluster is named", () => {
    const client = createRedisClient({ prefix: 'pm', url: 'redis://app:secret@10.0.0.9:6380/2' }, behaviour);
    expect(client).toBeInstanceOf(Redis);
    expect((client as Redis).options).toMatchObject({
      host: '10.0.0.9',
      port: 6380,
      db: 2,
      username: 'app',
      password: 'secret',
      ...behaviour,
    });
  });

  it("gives a cluster the same behaviour: the cluster client's while Redis is away, the rest each node's, with REDIS_URL's credentials", () => {
    const client = createRedisClient({ prefix: 'pm', url: 'rediss://app:secret@ignored:6379', clusterNodes: nodes }, behaviour);
    expect(client).toBeInstanceOf(Cluster);
    const cluster = client as Cluster;
    expect(cluster.options).toMatchObject({
      lazyConnect: true,
      enableOfflineQueue: false,
      clusterRetryStrategy: reconnectDelayMs,
      enableReadyCheck: false,
    });
    expect(cluster.options.redisOptions).toEqual({
      username: 'app',
      password: 'secret',
      tls: {},
      maxRetriesPerRequest: 1,
      commandTimeout: 1000,
      connectionName: 'practice-api',
    });
    expect(cluster.status).toBe('wait');
  });

  it('listens on one seed node of a cluster, the next one at each reconnection', () => {
    const subscriber = createSubscriberClient({ prefix: 'pm', clusterNodes: nodes }, behaviour);
    expect(subscriber).toBeInstanceOf(Redis);
    expect(subscriber.options).toMatchObject({ host: '10.0.0.1', port: 7000 });
    expect(subscriber.options.retryStrategy!(1)).toBe(reconnectDelayMs(1));
    expect(subscriber.options).toMatchObject({ host: '10.0.0.2', port: 7001 });
    subscriber.options.retryStrategy!(2);
    expect(subscriber.options).toMatchObject({ host: '10.0.0.1', port: 7000 });
  });
});
