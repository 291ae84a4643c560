import type { JobsOptions, WorkerOptions } from 'bullmq';
import type { AppConfig } from '../../config/app-config';
import type { Mode } from '../../database/tenant-owned.entity';

/**
 * Every queue and job, in one place. A module that adds a queue adds its name, its job names, one
 * payload type per job and the queue's policy below, then one `@OnJob(name)` handler per job in a
 * provider of a module imported by WorkersModule: start-up checks that each job has exactly one.
 */
export enum QueueName {
  PatientImports = 'patient-imports',
  WebhookDeliveries = 'webhook-deliveries',
  EmailSends = 'email-sends',
  EmailSequences = 'email-sequences',
  SmsSends = 'sms-sends',
  AppointmentReminders = 'appointment-reminders',
  SchedulingHolds = 'scheduling-holds',
  SchedulingWaitlist = 'scheduling-waitlist',
  Maintenance = 'maintenance',
}

/** Job names, unique across queues (a handler is found by its job's name). */
export enum JobName {
  /** Process a bulk import; jobId = the import's id, so adding it twice never runs it twice. */
  PatientImport = 'patient-import',
  /**
   * One attempt of one webhook delivery; jobId = `<deliveryId>_<attempt>[_tag]`. The attempt is claimed in
   * PostgreSQL by its number, so a duplicated job sends nothing.
   */
  WebhookDelivery = 'webhook-delivery',
  /**
   * Send one email message; jobId = the message id, so a message is one job. Its row is claimed in
   * PostgreSQL before each try (see MessageSender): a job that finds it settled sends nothing, and a re-run
   * after its worker died sends it again (same Message-ID).
   */
  EmailSend = 'email-send',
  /**
   * Run one step of one sequence enrolment; jobId = `<enrollmentId>_<step>`. The step is claimed in
   * PostgreSQL (the enrolment's current step, under its row lock), so a duplicated job sends nothing.
   */
  EmailSequenceStep = 'email-sequence-step',
  /**
   * Send one SMS; jobId = the message id, so a message is one job. Its row is claimed in PostgreSQL before
   * each try (see MessageSender): a job that finds it settled sends nothing.
   */
  SmsSend = 'sms-send',
  /**
   * Send one appointment reminder at its time; jobId = `<reminderId>_<sendAt in ms>`, recorded with its due
   * time in the transaction that plans the reminder. The reminder is claimed in PostgreSQL in the
   * transaction that queues its message and settles it, so a duplicated or re-run job sends nothing more,
   * and a job whose reminder was cancelled or re-planned does nothing.
   */
  ReminderSend = 'reminder-send',
  /**
   * Expire one hold at its time; jobId = the hold's id, recorded with its due time in the transaction that
   * takes the hold and forgotten by the one that books or releases it. Only an active hold whose time has
   * come is expired, so a duplicated or late job does nothing more.
   */
  HoldExpire = 'hold-expire',
  /**
   * Offer time that was freed (an appointment cancelled or moved away, time off removed, a waitlist offer
   * declined, expired or withdrawn) to the oldest fitting waitlist entry; jobId = the freeing's id, recorded
   * in the transaction that frees the time. The offer it makes is unique per freeing, so a duplicated or
   * re-run job offers once.
   */
  WaitlistTimeFreed = 'waitlist-time-freed',
  /**
   * Expire one waitlist offer at its time; jobId = the offer's id, recorded with its due time in the
   * transaction that makes the offer. Only a pending offer whose time has come is expired.
   */
  WaitlistOfferExpire = 'waitlist-offer-expire',
  /** Periodic (PERIODIC_JOBS): add the job outbox's jobs that their own process did not add (JobOutboxRelay). */
  JobOutboxRelay = 'job-outbox-relay',
  /** Periodic: fan committed events out into webhook deliveries (EventRelay). */
  EventRelay = 'event-relay',
  /** Periodic: the retention sweeps (RetentionSweeper). */
  RetentionSweep = 'retention-sweep',
}

/** Each job's payload carries the tenant and mode it works for. */
export interface PatientImportPayload {
  importId: string;
  tenantId: string;
  mode: Mode;
}

export interface WebhookDeliveryPayload {
  deliveryId: string;
  tenantId: string;
  mode: Mode;
  /** The attempt this job makes (1 for the first). */
  attempt: number;
  /** A retry by hand (or a test event): its failure does not disable the endpoint. */
  manual: boolean;
}

/** One message's send job; the same for every channel. */
export interface MessageSendPayload {
  messageId: string;
  tenantId: string;
  mode: Mode;
  /**
   * Set by a try whose relay accepted the message but which could not record it (PostgreSQL was away): the
   * relay's id, or '' when it named none. The next try records the acceptance instead of sending again.
   */
  acceptedAs?: string;
}

export type EmailSendPayload = MessageSendPayload;

export interface EmailSequenceStepPayload {
  enrollmentId: string;
  /** The step (0-based) this job runs; stale once the enrolment has moved past it. */
  step: number;
  tenantId: string;
  mode: Mode;
}

export type SmsSendPayload = MessageSendPayload;

export interface ReminderSendPayload {
  reminderId: string;
  appointmentId: string;
  /** The reminder's due time (ISO 8601, the clock's time): a job that runs early waits, one that no longer matches does nothing. */
  sendAt: string;
  tenantId: string;
  mode: Mode;
}

export interface WaitlistTimeFreedPayload {
  /** The freeing's id: the offer it makes is unique by it. */
  freeingId: string;
  providerId: string;
  /** The freed span (ISO 8601). */
  from: string;
  to: string;
  tenantId: string;
  mode: Mode;
}

export interface WaitlistOfferExpirePayload {
  offerId: string;
  /** The offer's expiry (ISO 8601, the clock's time): a job that runs early waits. */
  expiresAt: string;
  tenantId: string;
  mode: Mode;
}

export interface HoldExpirePayload {
  holdId: string;
  /** The hold's expiry (ISO 8601, the clock's time): a job that runs early waits. */
  expiresAt: string;
  tenantId: string;
  mode: Mode;
}

/** A periodic job's payload: empty, as it works across tenants by design (each row it takes names its own). */
export type PeriodicPayload = Record<string, never>;

export interface JobPayloads {
  [JobName.PatientImport]: PatientImportPayload;
  [JobName.WebhookDelivery]: WebhookDeliveryPayload;
  [JobName.EmailSend]: EmailSendPayload;
  [JobName.EmailSequenceStep]: EmailSequenceStepPayload;
  [JobName.SmsSend]: SmsSendPayload;
  [JobName.ReminderSend]: ReminderSendPayload;
  [JobName.HoldExpire]: HoldExpirePayload;
  [JobName.WaitlistTimeFreed]: WaitlistTimeFreedPayload;
  [JobName.WaitlistOfferExpire]: WaitlistOfferExpirePayload;
  [JobName.JobOutboxRelay]: PeriodicPayload;
  [JobName.EventRelay]: PeriodicPayload;
  [JobName.RetentionSweep]: PeriodicPayload;
}

export type PeriodicJobName = JobName.JobOutboxRelay | JobName.EventRelay | JobName.RetentionSweep;

/**
 * The periodic work: each is a BullMQ job scheduler (its id is the job's name) that the workers upsert at
 * start-up and whenever Redis comes back, so each runs once per interval in the whole cluster, on whichever
 * worker takes it. A run that fails is not retried: the next run is its retry.
 */
export const PERIODIC_JOBS: Record<PeriodicJobName, { everyMs: (config: AppConfig) => number }> = {
  // A job recorded by a process that died right after its commit, or while Redis was away, waits this long
  // beyond the 2 s its own process has to add it.
  [JobName.JobOutboxRelay]: { everyMs: () => 500 },
  // The bound on a webhook's delay after its event commits (EVENTS_RELAY_INTERVAL_MS).
  [JobName.EventRelay]: { everyMs: (config) => config.webhooks.relayIntervalMs },
  // Retention is counted in days and months: a few minutes late costs nothing.
  [JobName.RetentionSweep]: { everyMs: () => 10 * 60_000 },
};

/**
 * How a queue's workers run and how its jobs are retried.
 * - `lockDuration`: a worker holds each active job's lock for this long and renews it every half of it;
 *   when a worker dies, its jobs are found stalled once the lock has expired.
 * - `stalledInterval`: how often each worker looks for stalled jobs and puts them back in the queue, so a
 *   crashed worker's job resumes within about lockDuration + 2 × stalledInterval.
 * - `maxStalledCount`: how many stalls BullMQ tolerates before it fails a job for good.
 * - `attempts` / `backoff`: retries of a job whose handler threw.
 */
export interface QueuePolicy {
  jobs: readonly JobName[];
  worker: Required<Pick<WorkerOptions, 'concurrency' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'>>;
  /** Without `attempts` and `backoff` when `retriesFrom` names them. */
  jobOptions: Required<Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'>> & Pick<JobsOptions, 'attempts' | 'backoff'>;
  /** The configuration group whose `maxAttempts` and `retryBaseMs` retry this queue's jobs (JobQueue applies them). */
  retriesFrom?: ConfiguredRetries;
}

/** The configuration groups that say how their queue's jobs are retried (EMAIL_, SMS_ and REMINDER_MAX_ATTEMPTS and _RETRY_BASE_MS). */
export type ConfiguredRetries = 'email' | 'sms' | 'reminders';

/**
 * One queue's policy, flat, as QUEUES states it; `policy` fills in what most queues share. Retries back off
 * exponentially from `retryDelay` (each wait doubles the one before).
 */
type QueueSettings = {
  concurrency: number;
  /** 30 s (BullMQ's default) unless stated. */
  lockDuration?: number;
  /** 15 s unless stated. */
  stalledInterval?: number;
  maxStalledCount: number;
  /** How many failed jobs Redis keeps for inspection; 1,000 unless stated. */
  keepFailed?: number;
  /** Completed jobs Redis keeps: KEEP_COMPLETED unless stated. */
  keepCompleted?: JobsOptions['removeOnComplete'];
} & ({ attempts: number; retryDelay: number } | { retriesFrom: ConfiguredRetries });

/** A job's tries and the wait before each retry, doubling from `retryBaseMs`, as BullMQ takes them. */
export function retryOptions(retry: { maxAttempts: number; retryBaseMs: number }): Required<Pick<JobsOptions, 'attempts' | 'backoff'>> {
  return { attempts: retry.maxAttempts, backoff: { type: 'exponential', delay: retry.retryBaseMs } };
}

/**
 * Completed jobs Redis keeps per queue, so that the queue dashboard shows what just ran: the last hour's, up
 * to 1,000 (a row in PostgreSQL is each job's record). BullMQ ignores the add of an id it still holds, so a
 * jobId names one run of its work: a step held and resumed, or a webhook retried by hand, gets a new one.
 */
const KEEP_COMPLETED = { age: 3_600, count: 1_000 };

function policy(jobs: readonly JobName[], settings: QueueSettings): QueuePolicy {
  return {
    jobs,
    worker: {
      concurrency: settings.concurrency,
      lockDuration: settings.lockDuration ?? 30_000,
      stalledInterval: settings.stalledInterval ?? 15_000,
      maxStalledCount: settings.maxStalledCount,
    },
    jobOptions: {
      ...('retriesFrom' in settings ? {} : retryOptions({ maxAttempts: settings.attempts, retryBaseMs: settings.retryDelay })),
      removeOnComplete: settings.keepCompleted ?? KEEP_COMPLETED,
      removeOnFail: { count: settings.keepFailed ?? 1_000 },
    },
    ...('retriesFrom' in settings ? { retriesFrom: settings.retriesFrom } : {}),
  };
}

/** The comment above each queue says why its values are what they are. */
export const QUEUES: Record<QueueName, QueuePolicy> = {
  // Concurrency 2: an import mostly waits on PostgreSQL, and a third would only queue behind the same
  // database. A 500-row chunk takes about a second; the default lock (30 s) leaves room for a loaded event
  // loop or a slow commit before a live worker's lock could lapse and its job run twice, and a stalled
  // check every 15 s puts a crashed worker's import back to work within about a minute.
  // maxStalledCount 100: a crash costs one uncommitted chunk, as the import resumes from its committed
  // cursor and fails by itself after 5 starts in a row that make no progress (patient-imports.service.ts);
  // BullMQ's own limit is only the backstop for crashes before that count is taken: 20 chunks of the
  // largest import × 5 starts each.
  // 5 attempts, 2, 4, 8, 16 s apart: errors (a database restart, a deadlock) are retried from the cursor,
  // so a short outage costs a delay, not the import. The import's row in PostgreSQL is its record; Redis
  // keeps recent jobs, finished or failed, only for inspection.
  [QueueName.PatientImports]: policy([JobName.PatientImport], {
    concurrency: 2,
    maxStalledCount: 100,
    attempts: 5,
    retryDelay: 2_000,
    keepFailed: 5_000,
  }),
  // Concurrency 50: an attempt is mostly waiting on the receiver (up to WEBHOOK_TIMEOUT_MS); the default
  // lock outlasts an attempt's 10 s timeout plus its database writes. A stalled attempt runs again only if
  // its claim in PostgreSQL has lapsed (see the deliverer). The 3 attempts cover our own failures
  // (database, Redis); the receiver's failures are recorded as attempts and scheduled as new delayed jobs
  // with the webhook backoff (retry-schedule.ts). Redis keeps more failed jobs than most.
  [QueueName.WebhookDeliveries]: policy([JobName.WebhookDelivery], {
    concurrency: 50,
    maxStalledCount: 5,
    attempts: 3,
    retryDelay: 1_000,
    keepFailed: 5_000,
  }),
  // Concurrency 16: a send mostly waits on the SMTP server and PostgreSQL; each worker keeps this many SMTP
  // connections open (one per concurrent job), which a relay's per-client limit must allow. The default
  // lock outlasts the SMTP timeouts (10 s to connect or greet, 20 s per reply) plus the database writes.
  // maxStalledCount 3: a re-run after a crash sends the message again (the server's acceptance was never
  // recorded); the count only stops a message whose sends keep killing their worker: it ends failed.
  // Retries as EMAIL_MAX_ATTEMPTS and EMAIL_RETRY_BASE_MS say (by default six tries over 2.5 minutes, which
  // ride out a relay's restart), then the message ends `failed` with the last error.
  [QueueName.EmailSends]: policy([JobName.EmailSend], { concurrency: 16, maxStalledCount: 3, retriesFrom: 'email' }),
  // Concurrency 10: a step is two or three short transactions (claim, render and queue its message); the
  // sending itself is the email-sends queue's work. A re-run is harmless: the step is claimed by number
  // under the enrolment's row lock. 5 attempts, 2, 4, 8, 16 s apart, for our own failures (database,
  // Redis); after that the enrolment ends `failed` with the reason (SequenceStepsProcessor.failed). A step
  // held while its sequence was paused is added again on resume under an id of its own (SequenceStepJobs).
  [QueueName.EmailSequences]: policy([JobName.EmailSequenceStep], { concurrency: 10, maxStalledCount: 5, attempts: 5, retryDelay: 2_000 }),
  // Concurrency 32: a send is one HTTPS request to the provider and two short writes, mostly waiting. The
  // default lock outlasts a provider request's timeout (SMS_TIMEOUT_MS, 10 s) plus the database writes.
  // maxStalledCount 3: a re-run after a crash sends the message again (the provider's answer was never
  // recorded); the count only stops a message whose sends keep killing their worker: it ends failed.
  // Retries for provider errors and timeouts as SMS_MAX_ATTEMPTS and SMS_RETRY_BASE_MS say, then the message
  // ends `failed`.
  [QueueName.SmsSends]: policy([JobName.SmsSend], { concurrency: 32, maxStalledCount: 3, retriesFrom: 'sms' }),
  // Concurrency 16: a reminder is one short transaction (claim, render and queue its message, settle); the
  // sending is the email and SMS queues' work, and many fall due in the same minute (every 09:00
  // appointment's). The lock is far longer than that transaction and short, so that a crashed worker's
  // reminders go out within seconds (about lockDuration + stalledInterval) rather than a minute late; a
  // live worker that lost its lock on a stalled event loop costs nothing, as the row claim lets only one
  // run send. Retries for our own failures (database, Redis) as REMINDER_MAX_ATTEMPTS and
  // REMINDER_RETRY_BASE_MS say; after that the reminder ends `failed` with the reason (ReminderSender.failed).
  [QueueName.AppointmentReminders]: policy([JobName.ReminderSend], {
    concurrency: 16,
    lockDuration: 10_000,
    stalledInterval: 5_000,
    maxStalledCount: 5,
    retriesFrom: 'reminders',
  }),
  // Concurrency 8: an expiry is one short UPDATE, and holds are taken one at a time by people. A short lock
  // and stalled check as for reminders, since an expiry frees time others are waiting to book (availability
  // already ignores a lapsed hold, so a late expiry costs nothing else). 5 attempts, 1, 2, 4, 8 s apart,
  // for our own failures (database, Redis); a hold whose job failed for good is expired by the next booking
  // or hold of its provider's time.
  [QueueName.SchedulingHolds]: policy([JobName.HoldExpire], {
    concurrency: 8,
    lockDuration: 10_000,
    stalledInterval: 5_000,
    maxStalledCount: 5,
    attempts: 5,
    retryDelay: 1_000,
  }),
  // Concurrency 4: a freeing takes its provider's turn and reads availability, and freeings come one per
  // cancellation. Locks and retries as for holds: an offer's time is short and patients are waiting.
  [QueueName.SchedulingWaitlist]: policy([JobName.WaitlistTimeFreed, JobName.WaitlistOfferExpire], {
    concurrency: 4,
    lockDuration: 10_000,
    stalledInterval: 5_000,
    maxStalledCount: 5,
    attempts: 5,
    retryDelay: 1_000,
  }),
  // The periodic jobs (PERIODIC_JOBS). Concurrency 3: a long retention pass must not hold back the relays.
  // One attempt and one stall: the next run, an interval later, is the retry. Completed runs are not kept
  // (two or more a second would crowd out the dashboard); the last failed ones are.
  [QueueName.Maintenance]: policy([JobName.JobOutboxRelay, JobName.EventRelay, JobName.RetentionSweep], {
    concurrency: 3,
    maxStalledCount: 1,
    attempts: 1,
    retryDelay: 0,
    keepCompleted: true,
    keepFailed: 100,
  }),
};

/** The queue each job name belongs to. */
export function queueOf(job: JobName): QueueName {
  const found = (Object.keys(QUEUES) as QueueName[]).find((queue) => QUEUES[queue].jobs.includes(job));
  if (!found) throw new Error(`job ${job} belongs to no queue in QUEUES (src/common/queue/queues.ts)`);
  return found;
}
