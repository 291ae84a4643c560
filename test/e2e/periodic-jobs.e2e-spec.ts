import { getQueueToken } from '@nestjs/bullmq';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Queue, QueueEvents } from 'bullmq';
import { workerConnection } from '../../src/common/queue/queue.module';
import { bullPrefix } from '../../src/common/queue/queue-keys';
import { JobName, QueueName } from '../../src/common/queue/queues';
import { AppConfig } from '../../src/config/app-config';
import { startApp } from '../helpers/app';
import { NO_RATE_LIMITS } from '../helpers/patients';
import { sleep } from '../helpers/processes';
import { useApp } from '../helpers/use-app';

/**
 * Periodic work as BullMQ job schedulers: two worker processes (two apps on one Redis prefix) put one
 * scheduler per periodic job in Redis, and each periodic job runs once per interval between them, not once
 * per process.
 */
describe('Periodic jobs', () => {
  const env = { ...NO_RATE_LIMITS, REDIS_PREFIX: `${process.env.REDIS_PREFIX}:periodic`, EVENTS_RELAY_INTERVAL_MS: '250' };
  const suite = useApp(env);
  let second: NestFastifyApplication | undefined;
  afterAll(async () => second?.close());

  it('are one job scheduler each in Redis, and run once per interval across two workers', async () => {
    second = await startApp(env);
    const queue = suite.app.get<Queue>(getQueueToken(QueueName.Maintenance), { strict: false });
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.every]).sort()).toEqual([
      [JobName.EventRelay, 250],
      [JobName.JobOutboxRelay, 500],
      [JobName.RetentionSweep, 600_000],
    ]);

    const config = suite.app.get(AppConfig);
    const events = new QueueEvents(QueueName.Maintenance, {
      connection: workerConnection(config),
      prefix: bullPrefix(config.redis, QueueName.Maintenance),
    });
    const relayRuns: string[] = [];
    events.on('completed', ({ jobId }) => {
      if (jobId.includes(JobName.JobOutboxRelay)) relayRuns.push(jobId);
    });
    try {
      await events.waitUntilReady();
      await sleep(5_000);
    } finally {
      await events.close();
    }
    // Every 500 ms for 5 s: about 10 runs in all, where a relay in each process would make about 20.
    expect(relayRuns.length).toBeGreaterThanOrEqual(6);
    expect(relayRuns.length).toBeLessThanOrEqual(12);
    expect(new Set(relayRuns).size).toBe(relayRuns.length);
  });
});
