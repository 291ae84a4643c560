import type { JobsOptions, WorkerOptions } from 'bullmq';
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
   * PostgreSQL before each try (see EmailSender): a job that finds it settled sends nothing, and a re-run
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
   * each try (see SmsSender): a job that finds it settled sends nothing.
   */
  SmsSend = 'sms-send',
  /**
   * Send one appointment reminder that has come due (recorded by ReminderSweep); jobId = the reminder's id.
   * The reminder is claimed in PostgreSQL in the transaction that queues its message and settles it, so a
   * duplicated or re-run job sends nothing more.
   */
  ReminderSend = 'reminder-send',
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

export interface EmailSendPayload {
  messageId: string;
  tenantId: string;
  mode: Mode;
}

export interface EmailSequenceStepPayload {
  enrollmentId: string;
  /** The step (0-based) this job runs; stale once the enrolment has moved past it. */
  step: number;
  tenantId: string;
  mode: Mode;
}

export interface SmsSendPayload {
  messageId: string;
  tenantId: string;
  mode: Mode;
}

export interface ReminderSendPayload {
  reminderId: string;
  appointmentId: string;
  tenantId: string;
  mode: Mode;
}

export interface JobPayloads {
  [JobName.PatientImport]: PatientImportPayload;
  [JobName.WebhookDelivery]: WebhookDeliveryPayload;
  [JobName.EmailSend]: EmailSendPayload;
  [JobName.EmailSequenceStep]: EmailSequenceStepPayload;
  [JobName.SmsSend]: SmsSendPayload;
  [JobName.ReminderSend]: ReminderSendPayload;
}

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
  jobOptions: Required<Pick<JobsOptions, 'attempts' | 'backoff' | 'removeOnComplete' | 'removeOnFail'>>;
}

export const QUEUES: Record<QueueName, QueuePolicy> = {
  [QueueName.PatientImports]: {
    jobs: [JobName.PatientImport],
    worker: {
      // Two imports at once per worker: each is mostly waiting on PostgreSQL, and a third would only
      // queue behind the same database.
      concurrency: 2,
      // A 500-row chunk takes about a second; 30 s (BullMQ's default) leaves room for a loaded event loop
      // or a slow commit before a live worker's lock could lapse and its job run twice.
      lockDuration: 30_000,
      // The check is one Lua call per worker: every 15 s puts a crashed worker's import back to work
      // within about a minute.
      stalledInterval: 15_000,
      // A crash costs one uncommitted chunk: the import resumes from its committed cursor, and fails by
      // itself after 5 starts in a row that make no progress (patient-imports.service.ts). BullMQ's
      // own limit is only the backstop for crashes before that count is taken: 20 chunks of the largest
      // import × 5 starts each.
      maxStalledCount: 100,
    },
    jobOptions: {
      // Errors (a database restart, a deadlock) are retried from the cursor: 2, 4, 8, 16 s apart, so a
      // short outage costs a delay, not the import.
      attempts: 5,
      backoff: { type: 'exponential', delay: 2_000 },
      // The import's row in PostgreSQL is its record; Redis keeps recent jobs only for inspection.
      removeOnComplete: { count: 1_000 },
      removeOnFail: { count: 5_000 },
    },
  },
  [QueueName.WebhookDeliveries]: {
    jobs: [JobName.WebhookDelivery],
    worker: {
      // An attempt is mostly waiting on the receiver (up to WEBHOOK_TIMEOUT_MS): many at once per worker.
      concurrency: 50,
      // Longer than an attempt's 10 s timeout plus its database writes.
      lockDuration: 30_000,
      stalledInterval: 15_000,
      // A stalled attempt runs again only if its claim in PostgreSQL has lapsed (see the deliverer).
      maxStalledCount: 5,
    },
    jobOptions: {
      // Retries here cover our own failures (database, Redis); the receiver's failures are recorded as
      // attempts and scheduled as new delayed jobs with the webhook backoff (retry-schedule.ts).
      attempts: 3,
      backoff: { type: 'exponential', delay: 1_000 },
      // The delivery and its attempts are recorded in PostgreSQL; finished jobs need not stay in Redis.
      removeOnComplete: true,
      removeOnFail: { count: 5_000 },
    },
  },
  [QueueName.EmailSends]: {
    jobs: [JobName.EmailSend],
    worker: {
      // A send mostly waits on the SMTP server and PostgreSQL; each worker keeps this many SMTP
      // connections open (one per concurrent job), which a relay's per-client limit must allow.
      concurrency: 16,
      // Longer than the SMTP timeouts (10 s to connect or greet, 20 s per reply) plus the database writes.
      lockDuration: 30_000,
      stalledInterval: 15_000,
      // A re-run after a crash sends the message again (the server's acceptance was never recorded). The
      // count only stops a message whose sends keep killing their worker: it ends failed.
      maxStalledCount: 3,
    },
    jobOptions: {
      // Failed tries (server down, 4xx, no answer) are retried 5, 10, 20, 40, 80 s apart: six tries
      // over 2.5 minutes ride out a relay's restart, then the message ends `failed` with the last error.
      // EMAIL_MAX_ATTEMPTS and EMAIL_RETRY_BASE_MS override both (EmailMessagesService adds the jobs).
      attempts: 6,
      backoff: { type: 'exponential', delay: 5_000 },
      // The message's row is its record; Redis keeps only failed jobs, briefly, for inspection.
      removeOnComplete: true,
      removeOnFail: { count: 1_000 },
    },
  },
  [QueueName.EmailSequences]: {
    jobs: [JobName.EmailSequenceStep],
    worker: {
      // A step is two or three short transactions (claim, render and queue its message); the sending
      // itself is the email-sends queue's work.
      concurrency: 10,
      lockDuration: 30_000,
      stalledInterval: 15_000,
      // A re-run is harmless: the step is claimed by number under the enrolment's row lock.
      maxStalledCount: 5,
    },
    jobOptions: {
      // Our own failures (database, Redis) are retried 2, 4, 8, 16 s apart; after that the enrolment
      // ends `failed` with the reason (SequenceStepsProcessor.failed).
      attempts: 5,
      backoff: { type: 'exponential', delay: 2_000 },
      // The enrolment's row is the record; finished steps must also leave their id free, so that a step
      // held while its sequence was paused can be added again on resume.
      removeOnComplete: true,
      removeOnFail: { count: 1_000 },
    },
  },
  [QueueName.SmsSends]: {
    jobs: [JobName.SmsSend],
    worker: {
      // A send is one HTTPS request to the provider and two short writes: mostly waiting, so many at once.
      concurrency: 32,
      // Longer than a provider request's timeout (SMS_TIMEOUT_MS, 10 s) plus the database writes.
      lockDuration: 30_000,
      stalledInterval: 15_000,
      // A re-run after a crash sends the message again (the provider's answer was never recorded); the
      // count only stops a message whose sends keep killing their worker: it ends failed.
      maxStalledCount: 3,
    },
    jobOptions: {
      // Provider errors and timeouts are retried 5, 10, 20, 40, 80 s apart (SMS_MAX_ATTEMPTS and
      // SMS_RETRY_BASE_MS override both; SmsSendJobs adds the jobs), then the message ends `failed`.
      attempts: 6,
      backoff: { type: 'exponential', delay: 5_000 },
      removeOnComplete: true,
      removeOnFail: { count: 1_000 },
    },
  },
  [QueueName.AppointmentReminders]: {
    jobs: [JobName.ReminderSend],
    worker: {
      // A reminder is one short transaction (claim, render and queue its message, settle); the sending is
      // the email and SMS queues' work. Many fall due in the same minute (every 09:00 appointment's).
      concurrency: 16,
      // Far longer than that transaction; short, so that a crashed worker's reminders go out within
      // seconds (about lockDuration + stalledInterval) rather than a minute late. A live worker that lost
      // its lock on a stalled event loop costs nothing: the row claim lets only one run send.
      lockDuration: 10_000,
      stalledInterval: 5_000,
      maxStalledCount: 5,
    },
    jobOptions: {
      // Our own failures (database, Redis) are retried 2, 4, … 64 s apart; after that the reminder ends
      // `failed` with the reason (ReminderSender.failed).
      attempts: 7,
      backoff: { type: 'exponential', delay: 2_000 },
      // The reminder's row is its record.
      removeOnComplete: true,
      removeOnFail: { count: 1_000 },
    },
  },
};

/** The queue each job name belongs to. */
export function queueOf(job: JobName): QueueName {
  const found = (Object.keys(QUEUES) as QueueName[]).find((queue) => QUEUES[queue].jobs.includes(job));
  if (!found) throw new Error(`job ${job} belongs to no queue in QUEUES (src/common/queue/queues.ts)`);
  return found;
}
