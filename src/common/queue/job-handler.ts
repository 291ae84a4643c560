import { SetMetadata } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { JobName, JobPayloads } from './queues';

export const ON_JOB = 'queue:on-job';
export const ON_JOB_FAILED = 'queue:on-job-failed';

/** What a handler gets besides its job. */
export interface JobContext {
  /**
   * Aborted when this process shuts down. A long job checks it between units of work that commit on
   * their own and throws `JobInterruptedError`: the job goes back to the queue with no attempt used.
   */
  signal: AbortSignal;
}

export type JobHandlerFn<N extends JobName> = (job: Job<JobPayloads[N]>, context: JobContext) => Promise<unknown>;

/** Called once when BullMQ gives up on a job (attempts used up, unrecoverable, or stalled too often). */
export type JobFailedHandlerFn<N extends JobName> = (payload: JobPayloads[N], jobId: string, reason: string) => Promise<void>;

/**
 * Marks the method that runs every job of this name. Start-up fails unless each job name declared in
 * QUEUES has exactly one.
 */
export const OnJob = (name: JobName): MethodDecorator => SetMetadata(ON_JOB, name);

/** Marks the method told when a job of this name has failed for good (at most one per job name). */
export const OnJobFailed = (name: JobName): MethodDecorator => SetMetadata(ON_JOB_FAILED, name);

/** Thrown by a handler that stopped early because `context.signal` was aborted. */
export class JobInterruptedError extends Error {
  constructor() {
    super('interrupted by shutdown');
    this.name = 'JobInterruptedError';
  }
}

/**
 * Thrown by a handler whose job cannot run yet (it waits for another job's outcome): the job goes back
 * to the delayed set for `delayMs`, with no attempt used, and runs again then.
 */
export class JobNotReadyError extends Error {
  constructor(readonly delayMs: number) {
    super(`not ready; runs again in ${delayMs} ms`);
    this.name = 'JobNotReadyError';
  }
}

/**
 * An error whose message is safe to store with the job, log and show (no payload data). Other errors are
 * reduced to their class and SQLSTATE before BullMQ stores them: a driver's message can quote row values.
 */
export class JobFailure extends Error {
  constructor(
    message: string,
    /** True when retrying cannot help: the job fails at once instead of using its remaining attempts. */
    readonly final = false,
  ) {
    super(message);
    this.name = 'JobFailure';
  }
}

/** An error described without its message: its class, and its SQLSTATE, system code or Redis error code if it has one. */
export function describeError(err: unknown): string {
  if (err instanceof JobFailure) return err.message;
  const { name, code, message } = (err ?? {}) as { name?: unknown; code?: unknown; message?: unknown };
  const label = typeof name === 'string' && name ? name : 'Error';
  if (typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code)) return `${label} (${code})`;
  // A Redis error reply starts with its code (CROSSSLOT, MOVED, NOPERM): the one part of it safe to repeat.
  const reply = label === 'ReplyError' && typeof message === 'string' ? /^[A-Z]{2,32}(?= |$)/.exec(message) : null;
  return reply ? `${label} (${reply[0]})` : label;
}
