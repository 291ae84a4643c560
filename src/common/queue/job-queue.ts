import { getQueueToken } from '@nestjs/bullmq';
import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { Job, JobsOptions, Queue } from 'bullmq';
import { AppConfig } from '../../config/app-config';
import type { RedisClient } from '../redis/redis-client';
import { outboxMarkers } from './queue-keys';
import { JobName, JobPayloads, PERIODIC_JOBS, PeriodicJobName, QueueName, queueOf, QUEUES, retryOptions } from './queues';

const STALLED_TOO_OFTEN = 'job stalled more than allowable limit';

/**
 * Why BullMQ gave up on a job, in words for the job's owner. The stored reason is already safe (handlers'
 * errors are reduced to their class before BullMQ stores them, see queue-workers.ts).
 */
export function finalFailureReason(job: Pick<Job, 'failedReason' | 'attemptsMade' | 'opts'>, queue: QueueName): string {
  const reason = job.failedReason || 'unknown error';
  if (reason === STALLED_TOO_OFTEN) {
    return `its worker stopped (crashed or was killed) more than ${QUEUES[queue].worker.maxStalledCount} times while running it`;
  }
  const attempts = job.opts.attempts ?? 1;
  return attempts > 1 && job.attemptsMade >= attempts ? `gave up after ${job.attemptsMade} attempts: ${reason}` : reason;
}

/**
 * Adds jobs with their queue's options (QUEUES), and tells whether BullMQ has given up on one. Its calls
 * fail at once while Redis is away (see QueueModule's producer connection). Modules do not add jobs
 * themselves: they record them with JobOutbox, which adds them here.
 */
@Injectable()
export class JobQueue implements OnModuleInit, OnApplicationShutdown {
  private readonly queues = new Map<QueueName, Queue>();
  private connection?: RedisClient;

  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    for (const name of Object.values(QueueName)) {
      const queue = this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
      // Connection errors while Redis is away: failed adds and the readiness check report the outage.
      queue.on('error', () => undefined);
      this.queues.set(name, queue);
    }
    // Every queue shares the producer connection (QueueModule).
    this.connection = this.queue(QueueName.EmailSends).opts.connection as RedisClient;
  }

  async onApplicationShutdown(): Promise<void> {
    // A shared connection is left open by the queues' own close.
    await this.connection?.quit().catch(() => undefined);
  }

  /** Whether the producer connection is up: while it is not, an add would only fail. */
  get available(): boolean {
    return this.connection?.status === 'ready';
  }

  /**
   * Adds a job (after `delay` ms if given) with its queue's policy, its retries read from the configuration
   * where the policy says so; a `jobId` makes a second add of the same id a no-op. `attempts` and `backoff`
   * override the policy.
   */
  async add<N extends JobName>(
    name: N,
    payload: JobPayloads[N],
    options: Pick<JobsOptions, 'jobId' | 'delay' | 'attempts' | 'backoff'> = {},
  ): Promise<void> {
    const queue = queueOf(name);
    const { jobOptions, retriesFrom } = QUEUES[queue];
    const retries = retriesFrom ? retryOptions(this.config[retriesFrom]) : {};
    await this.queue(queue).add(name, payload, { ...jobOptions, ...retries, ...options });
  }

  /**
   * Upserts the job scheduler of every periodic job (PERIODIC_JOBS): one per job in Redis, whoever upserts
   * it, so its job runs once per interval in the cluster. A new scheduler first runs one interval after it
   * is made, as a pass at start-up would race the start; upserting one that exists keeps its next run.
   */
  async schedulePeriodicJobs(): Promise<void> {
    for (const [name, { everyMs }] of Object.entries(PERIODIC_JOBS) as [PeriodicJobName, (typeof PERIODIC_JOBS)[PeriodicJobName]][]) {
      const queue = queueOf(name);
      const { attempts, removeOnComplete, removeOnFail } = QUEUES[queue].jobOptions;
      const every = everyMs(this.config);
      await this.queue(queue).upsertJobScheduler(
        name,
        { every, startDate: Date.now() + every },
        { name, data: {}, opts: { attempts, removeOnComplete, removeOnFail } },
      );
    }
  }

  /** Calls `listener` each time the producer connection becomes ready (again): Redis may have come back empty. */
  onReady(listener: () => void): void {
    this.connection?.on('ready', listener);
  }

  /** How many workers (of any process) serve the queue of this job. */
  async workerCount(name: JobName): Promise<number> {
    return this.queue(queueOf(name)).getWorkersCount();
  }

  /**
   * Moves a delayed job to run `delayMs` from now (at once if 0). Answers false if it is not delayed (it ran,
   * runs, or is unknown here): its time is no longer the queue's to keep.
   */
  async retime(name: JobName, jobId: string, delayMs: number): Promise<boolean> {
    const job = await this.queue(queueOf(name)).getJob(jobId);
    if (!job || !(await job.isDelayed())) return false;
    try {
      await (delayMs > 0 ? job.changeDelay(delayMs) : job.promote());
      return true;
    } catch {
      // It left the delayed set meanwhile (a worker took it).
      return false;
    }
  }

  /** Whether this Redis still holds the job outbox's marker, set once it has been given every unfinished job (JobOutboxRelay). */
  async holdsOutboxMarker(): Promise<boolean> {
    const found = await Promise.all(outboxMarkers(this.config.redis).map((key) => this.connection!.exists(key)));
    return found.every((exists) => exists === 1);
  }

  async setOutboxMarker(): Promise<void> {
    const at = new Date().toISOString();
    await Promise.all(outboxMarkers(this.config.redis).map((key) => this.connection!.set(key, at)));
  }

  /** Removes a waiting or delayed job; a running (locked) or unknown one is left alone. Answers whether it went. */
  async remove(name: JobName, jobId: string): Promise<boolean> {
    return (await this.queue(queueOf(name)).remove(jobId)) === 1;
  }

  /** The reason BullMQ failed this job for good, or null while it may still run (or it is unknown here). */
  async finalFailure(name: JobName, jobId: string): Promise<string | null> {
    return (await this.failedJob(queueOf(name), jobId))?.reason ?? null;
  }

  /** A job BullMQ has failed for good: its name, payload and reason (null if it is not failed or is gone). */
  async failedJob(queue: QueueName, jobId: string): Promise<{ name: string; payload: unknown; reason: string } | null> {
    const job = await this.queue(queue).getJob(jobId);
    if (!job || !(await job.isFailed())) return null;
    return { name: job.name, payload: job.data, reason: finalFailureReason(job, queue) };
  }

  private queue(name: QueueName): Queue {
    const queue = this.queues.get(name);
    if (!queue) throw new Error(`queue ${name} is not registered`);
    return queue;
  }
}
