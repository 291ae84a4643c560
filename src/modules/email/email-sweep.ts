import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { describeError } from '../../common/queue/job-handler';
import { JobQueue } from '../../common/queue/job-queue';
import { PeriodicTask } from '../../common/queue/periodic-task';
import { JobName } from '../../common/queue/queues';
import { clock } from '../../common/time/clock';
import type { Mode } from '../../database/tenant-owned.entity';
import { EmailSendJobs } from './email-send-jobs';
import { EmailSender } from './email-sender';

/** How long past its due time an unsettled message waits before the sweep looks at it. */
const GRACE_SECONDS = 60;
const INTERVAL_MS = 10_000;
const BATCH = 500;

/**
 * Finds messages whose job went missing and adds it again, in every worker process. A message is
 * `queued` or `sending` and a minute past due when its job was never added (the process died between
 * COMMIT and the add, or Redis refused it) or was lost; adding a job whose id still exists is a no-op,
 * so a message with a live job is untouched. The job then settles it from its row (a `sending` message
 * is sent again); a message whose job BullMQ failed for good unheard ends failed. Each pass pushes the rows it took a minute ahead, under SKIP LOCKED,
 * so sweeps running side by side share the work instead of repeating it.
 */
@Injectable()
export class EmailSweep implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EmailSweep.name);
  private readonly task = new PeriodicTask(
    INTERVAL_MS,
    async () => {
      const swept = await this.runOnce();
      if (swept.length) this.logger.log(`email sweep took up ${swept.length} message(s)`);
    },
    (err) => this.logger.warn(`email sweep failed: ${describeError(err)}`),
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: EmailSendJobs,
    private readonly queue: JobQueue,
    private readonly sender: EmailSender,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** One pass; answers the ids of the messages it took up. Works across tenants by design: each row names its own. */
  async runOnce(graceSeconds = GRACE_SECONDS): Promise<string[]> {
    const rows = await this.dataSource.query<{ id: string; tenantId: string; mode: Mode }[]>(
      `UPDATE email_messages SET next_attempt_at = $3::timestamptz + make_interval(secs => $1)
        WHERE id IN (SELECT id FROM email_messages
                      WHERE status IN ('queued', 'sending') AND next_attempt_at < $3::timestamptz - make_interval(secs => $1)
                      ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, tenant_id AS "tenantId", mode`,
      [graceSeconds, BATCH, clock.now()],
    );
    const updated = (rows as unknown as [typeof rows, number])[0] ?? [];
    await Promise.all(
      updated.map(async (r) => {
        const payload = { messageId: r.id, tenantId: r.tenantId, mode: r.mode };
        // A job BullMQ failed for good while no worker heard of it: adding it again would be a no-op.
        const reason = await this.queue.finalFailure(JobName.EmailSend, r.id);
        if (reason) await this.sender.failed(payload, r.id, reason);
        else await this.jobs.add(payload);
      }),
    );
    return updated.map((r) => r.id);
  }
}
