import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ConnectionOptions, DelayedError, Job, QueueEvents, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import { Cluster } from 'ioredis';
import { AppConfig } from '../../config/app-config';
import { DependencyStatus } from '../observability/dependency-status';
import { describeError, JobFailure, JobInterruptedError, JobNotReadyError, ON_JOB, ON_JOB_FAILED } from './job-handler';
import type { JobContext } from './job-handler';
import { checkJobHandlers, FoundHandler } from './job-handlers.check';
import { JobOutbox } from './job-outbox';
import { JobQueue } from './job-queue';
import { workerConnection } from './queue.module';
import { bullPrefix } from './queue-keys';
import { JobName, PERIODIC_JOBS, QueueName, QUEUES } from './queues';

type Handler = (job: Job, context: JobContext) => Promise<unknown>;
/** How long a queue error other than Redis being away (a refused script, a cluster's CROSSSLOT) counts against readiness, and how often it is logged. */
const FAILING_FOR_MS = 10_000;
type FailedHandler = (payload: unknown, jobId: string, reason: string) => Promise<void>;

/**
 * Runs the queues' workers in this process: finds the `@OnJob` / `@OnJobFailed` methods, checks that each
 * declared job has exactly one handler (start-up fails otherwise), and starts one BullMQ worker per queue
 * with the queue's policy. On shutdown it tells running jobs to stop at their next safe point and waits
 * for them, before the database and Redis connections close.
 */
@Injectable()
export class QueueWorkers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(QueueWorkers.name);
  private readonly handlers = new Map<string, Handler>();
  private readonly failedHandlers = new Map<string, FailedHandler>();
  private readonly workers: Worker[] = [];
  private readonly events: QueueEvents[] = [];
  private readonly stopping = new AbortController();
  /** The last error a queue's worker met while Redis answered, by queue: what keeps its work from running. */
  private readonly failures = new Map<QueueName, { at: number; message: string; logged: number }>();
  private connection?: ConnectionOptions;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
    private readonly jobs: JobQueue,
    private readonly outbox: JobOutbox,
    private readonly dependencies: DependencyStatus,
  ) {}

  onApplicationBootstrap(): void {
    const found = this.discover();
    checkJobHandlers(QUEUES, found.handlers, found.failed);
    this.connection = workerConnection(this.config);
    for (const queue of Object.values(QueueName)) this.start(queue, this.connection);
  }

  /** Every queue's worker is running (none stopped or closing): the worker process's readiness. */
  get running(): boolean {
    return this.workers.length > 0 && this.workers.every((worker) => worker.isRunning());
  }

  /**
   * Why the queues cannot work although Redis answers (an error every worker fetch meets, such as a script
   * Redis refuses or a cluster's CROSSSLOT), or null: a worker process is not ready while this says something.
   */
  get failing(): string | null {
    const now = Date.now();
    const recent = [...this.failures].find(([, failure]) => now - failure.at < FAILING_FOR_MS);
    return recent ? `queue ${recent[0]}: ${recent[1].message}` : null;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    // close() waits for the active jobs, which now stop after their current unit of work. While Redis is away
    // BullMQ's graceful close waits for it for good: the workers then close without waiting (Redis could not
    // record their jobs' ends; its stalled-job check hands them to another worker) and the queue events are
    // left closing, so that a signal still stops the process.
    const redisAway = this.dependencies.states.some((s) => s.dependency === 'redis' && s.role.startsWith('queue-') && !s.up);
    await Promise.all(this.workers.map((worker) => worker.close(redisAway)));
    const eventsClosed = Promise.all(this.events.map((events) => events.close()));
    if (redisAway) eventsClosed.catch(() => undefined);
    else await eventsClosed;
    // A cluster client given to BullMQ is only copied, never connected, and left to its owner.
    if (this.connection instanceof Cluster) this.connection.disconnect();
  }

  /** A worker error other than Redis being away: noted for readiness, and logged once per interval, however often it repeats. */
  private failed(queue: QueueName, err: Error): void {
    const now = Date.now();
    const message = describeError(err);
    const previous = this.failures.get(queue);
    const log = !previous || now - previous.logged >= FAILING_FOR_MS;
    this.failures.set(queue, { at: now, message, logged: log ? now : previous.logged });
    if (log) this.logger.warn(`queue ${queue}: ${message}`);
  }

  private discover(): { handlers: FoundHandler[]; failed: FoundHandler[] } {
    const handlers: FoundHandler[] = [];
    const failed: FoundHandler[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic()) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const fn = prototype[method] as (...args: unknown[]) => Promise<unknown>;
        const name = `${instance.constructor.name}.${method}`;
        const job = this.reflector.get<JobName | undefined>(ON_JOB, fn);
        if (job) {
          handlers.push({ job, name });
          this.handlers.set(job, fn.bind(instance) as Handler);
        }
        const onFailed = this.reflector.get<JobName | undefined>(ON_JOB_FAILED, fn);
        if (onFailed) {
          failed.push({ job: onFailed, name });
          this.failedHandlers.set(onFailed, fn.bind(instance) as FailedHandler);
        }
      }
    }
    return { handlers, failed };
  }

  private start(queue: QueueName, connection: ConnectionOptions): void {
    const policy = QUEUES[queue];
    const prefix = bullPrefix(this.config.redis, queue);
    const worker = new Worker(queue, (job: Job, token?: string) => this.dispatch(job, token), {
      connection,
      prefix,
      ...policy.worker,
      lockDuration: this.config.queues.lockDurationMs ?? policy.worker.lockDuration,
      stalledInterval: this.config.queues.stalledIntervalMs ?? policy.worker.stalledInterval,
      // After a failed fetch (Redis away), try again within a second rather than BullMQ's 15 s.
      runRetryDelay: 1000,
    });
    this.dependencies.watchBull(worker, 'queue-workers', (err) => this.failed(queue, err));
    worker.on('stalled', (jobId) => this.logger.warn(`queue ${queue}: job ${jobId} stalled (its worker stopped); it runs again`));
    this.workers.push(worker);
    // Final failures reach every process through Redis, including those BullMQ decides by itself (a job
    // that stalled too often), where no handler runs.
    const events = new QueueEvents(queue, { connection, prefix });
    events.on('failed', ({ jobId }) => void this.onFinalFailure(queue, jobId));
    this.dependencies.watchBull(events, 'queue-events', (err) => this.logger.warn(`queue ${queue} events: ${describeError(err)}`));
    this.events.push(events);
  }

  private async dispatch(job: Job, token?: string): Promise<unknown> {
    const handler = this.handlers.get(job.name);
    if (!handler) throw new UnrecoverableError(`no handler for job ${job.name}`);
    if (job.name in PERIODIC_JOBS) return this.runPeriodic(job, handler);
    const attempt = { queue: job.queueName, job: job.name, jobId: job.id, attempt: job.attemptsMade + 1, attempts: job.opts.attempts ?? 1 };
    try {
      const result = await handler(job, { signal: this.stopping.signal });
      // An email sent, a webhook delivered: ids and counts only, never the payload (patient data).
      this.logger.debug(attempt, 'job completed');
      await this.finished(job.id);
      return result;
    } catch (err) {
      if (err instanceof JobInterruptedError) {
        // Back to the queue for another worker, with no attempt used: the job resumes where it stopped.
        await job.moveToWait(token);
        throw new WaitingError();
      }
      if (err instanceof JobNotReadyError) {
        // Later, with no attempt used: the job waits for something else, it did not fail.
        await job.moveToDelayed(Date.now() + err.delayMs, token);
        throw new DelayedError();
      }
      const description = describeError(err);
      const attempts = attempt.attempts;
      // Once per failed attempt, in the process that ran it; the error's class and code, not its message.
      this.logger.warn({ ...attempt, error: description }, 'job attempt failed');
      const final = err instanceof JobFailure && err.final;
      if (final || job.attemptsMade + 1 >= attempts) {
        // Told here as well as through the queue's events, which a process dying now would miss.
        const reason = final || attempts === 1 ? description : `gave up after ${attempts} attempts: ${description}`;
        await this.failedHandlers.get(job.name)?.(job.data, job.id ?? '', reason);
        await this.finished(job.id);
      }
      // BullMQ stores the message with the job: only the description, never the original message.
      if (final) throw new UnrecoverableError(description);
      throw new JobFailure(description);
    }
  }

  /**
   * A periodic job's run: never retried, as the next run is its retry, and an outage that fails every run
   * until it ends is told once by DependencyStatus rather than every interval.
   */
  private async runPeriodic(job: Job, handler: Handler): Promise<unknown> {
    try {
      return await handler(job, { signal: this.stopping.signal });
    } catch (err) {
      if (!this.dependencies.reportFailure(err)) this.logger.warn({ job: job.name, error: describeError(err) }, 'periodic job failed');
      return undefined;
    }
  }

  /** A job that has finished for good leaves the job outbox; a row left by a failed delete only costs a no-op add. */
  private async finished(jobId: string | undefined): Promise<void> {
    if (jobId) await this.outbox.done(jobId).catch((err: unknown) => this.logger.warn(`job outbox: ${describeError(err)}`));
  }

  private async onFinalFailure(queue: QueueName, jobId: string): Promise<void> {
    try {
      const failed = await this.jobs.failedJob(queue, jobId);
      if (!failed) return;
      const handler = this.failedHandlers.get(failed.name);
      // A handler records and logs the failure once; without one, each worker process logs it.
      if (handler) await handler(failed.payload, jobId, failed.reason);
      else this.logger.error(`job ${failed.name} ${jobId} failed for good: ${failed.reason}`);
      await this.finished(jobId);
    } catch (err) {
      this.logger.warn(`queue ${queue}: handling the failure of job ${jobId} failed: ${describeError(err)}`);
    }
  }
}
