import { Queue } from 'bullmq';
import Redis from 'ioredis';
import { producerOptions } from '../../src/common/queue/queue.module';
import { loadConfig } from '../../src/config/app-config';
import { PrivateRedis } from '../helpers/private-redis';
import { sleep } from '../helpers/processes';

const PAUSE_MS = 1500;

/**
 * A Redis that stops answering for a moment just as a producer queue is made (a busy server, or the process
 * itself stalled while starting): once Redis answers again the queue takes jobs, rather than keeping its
 * first timeout for the life of the process.
 */
describe('A producer queue made while Redis stalls', () => {
  let redis: PrivateRedis;
  let admin: Redis;
  const closing: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    admin = new Redis(redis.port, '127.0.0.1');
  });
  afterAll(async () => {
    await Promise.all(closing.map((close) => close()));
    admin.disconnect();
    await redis.kill();
  });

  it('adds jobs once Redis answers again', async () => {
    const options = producerOptions(loadConfig({ ...process.env, REDIS_URL: redis.url }));
    const connection = options.connection as Redis;
    closing.push(async () => connection.disconnect());
    // The app's producer connection is up, then Redis stops answering as the queue is made.
    if (connection.status !== 'ready') await new Promise((ready) => connection.once('ready', ready));
    await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL');
    const pausedAt = Date.now();
    const queue = new Queue('stall-probe', { ...options, prefix: `${process.env.REDIS_PREFIX}:stall` });
    queue.on('error', () => undefined);
    closing.push(() => queue.close());
    await sleep(pausedAt + PAUSE_MS + 500 - Date.now());

    const job = await queue.add('probe', { n: 1 });
    expect(await queue.getJobState(job.id!)).toBe('waiting');
  });
});
