import { IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { BoolVar, IntVar } from './env';

/** The workers: whether the API runs them, their health port, the queues' lock overrides and the dashboard. */
export class QueuesEnv {
  @BoolVar('must be on or off')
  WORKERS = true;

  /**
   * dist/worker.js has no HTTP listener: set, it answers GET /health/live and /health/ready on HOST and this
   * port, for a container's health check. Unset: no listener (a worker beside an API on PORT needs none).
   */
  @IsOptional()
  @IntVar(1, 65535)
  WORKER_HEALTH_PORT?: number = undefined;

  /**
   * Override every queue's lock duration and stalled-job check interval (src/common/queue/queues.ts sets
   * them per queue). For tests that kill workers and would otherwise wait a minute for the job to resume.
   */
  @IsOptional()
  @IntVar(1, 600)
  QUEUE_LOCK_SECONDS?: number = undefined;

  @IsOptional()
  @IntVar(1, 600)
  QUEUE_STALLED_CHECK_SECONDS?: number = undefined;

  /** Unset: no queue dashboard (/admin/queues is 404). Set: the dashboard, behind HTTP Basic auth. */
  @IsOptional()
  @IsString()
  @MinLength(12, { message: 'must be at least 12 characters' })
  @MaxLength(256)
  QUEUE_DASHBOARD_PASSWORD?: string = undefined;

  @Matches(/^[^:\s]{1,64}$/, { message: 'must be 1-64 characters without colons or spaces' })
  QUEUE_DASHBOARD_USERNAME = 'admin';

  /** false: the dashboard may also retry, promote, clean and remove jobs. */
  @BoolVar()
  QUEUE_DASHBOARD_READ_ONLY = true;
}

/** `healthPort`: see WORKER_HEALTH_PORT. */
export interface WorkerSettings {
  enabled: boolean;
  healthPort?: number;
}

/** Unset: each queue's own policy. */
export interface QueueOverrides {
  lockDurationMs?: number;
  stalledIntervalMs?: number;
}

/** No password: no dashboard. */
export interface QueueDashboardSettings {
  password?: string;
  username: string;
  readOnly: boolean;
}

export function workerSettings(vars: QueuesEnv): WorkerSettings {
  return { enabled: vars.WORKERS, healthPort: vars.WORKER_HEALTH_PORT };
}

export function queueOverrides(vars: QueuesEnv): QueueOverrides {
  return {
    lockDurationMs: vars.QUEUE_LOCK_SECONDS !== undefined ? vars.QUEUE_LOCK_SECONDS * 1000 : undefined,
    stalledIntervalMs: vars.QUEUE_STALLED_CHECK_SECONDS !== undefined ? vars.QUEUE_STALLED_CHECK_SECONDS * 1000 : undefined,
  };
}

export function queueDashboardSettings(vars: QueuesEnv): QueueDashboardSettings {
  return { password: vars.QUEUE_DASHBOARD_PASSWORD, username: vars.QUEUE_DASHBOARD_USERNAME, readOnly: vars.QUEUE_DASHBOARD_READ_ONLY };
}
