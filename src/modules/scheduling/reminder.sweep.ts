import { Injectable } from '@nestjs/common';
import { DependencyStatus } from '../../common/observability/dependency-status';
import { JobOutbox } from '../../common/queue/job-outbox';
import { inBatches, PeriodicSweep } from '../../common/queue/periodic-task';
import { JobName, retryOptions } from '../../common/queue/queues';
import { AppConfig } from '../../config/app-config';
import { Transactions } from '../../database/transactions';
import { ReminderDueRepository } from './reminder-due.repository';

/** How often each worker process looks for reminders that have come due: the bound on their lateness. */
const INTERVAL_MS = 1_000;
/** Reminders leased per transaction. */
const BATCH = 500;
/**
 * How long a leased reminder is left to its job before a sweep records the job again: longer than a
 * queue backlog normally lasts, and a job recorded again while the first exists is a no-op (its jobId).
 */
const LEASE_MS = 30_000;

/**
 * Finds the reminders that have come due by the clock (so a test that moves the clock moves them too) in
 * every worker process, every second, and records one send job per reminder (jobId = its id) in the
 * transaction that leases it: ReminderSender then claims, queues and settles it exactly once. A reminder
 * whose job was lost with its worker is leased and recorded again once its lease lapses.
 */
@Injectable()
export class ReminderSweep extends PeriodicSweep {
  constructor(
    private readonly transactions: Transactions,
    private readonly due: ReminderDueRepository,
    private readonly outbox: JobOutbox,
    private readonly config: AppConfig,
    dependencies: DependencyStatus,
  ) {
    super(ReminderSweep.name, INTERVAL_MS, dependencies);
  }

  /** One pass: records a send job for every reminder due now. */
  async runOnce(): Promise<void> {
    // Retried as REMINDER_MAX_ATTEMPTS and REMINDER_RETRY_BASE_MS say; then ReminderSender.failed ends it `failed`.
    const retries = retryOptions(this.config.reminders);
    await inBatches(BATCH, (limit) =>
      this.transactions.run(async (tx) => {
        const rows = await this.due.lease(limit, LEASE_MS, tx);
        await this.outbox.addMany(
          rows.map(({ id, appointmentId, tenantId, mode }) => ({
            name: JobName.ReminderSend,
            payload: { reminderId: id, appointmentId, tenantId, mode },
            options: { jobId: id, ...retries },
          })),
          tx,
        );
        return rows.length;
      }),
    );
  }
}
