import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  DataSource,
  EntityManager,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
  TransactionRollbackEvent,
} from 'typeorm';
import { describeError } from '../../common/queue/job-handler';
import { JobQueue } from '../../common/queue/job-queue';
import { EmailSendPayload, JobName } from '../../common/queue/queues';
import { AppConfig } from '../../config/app-config';

/**
 * Adds send jobs (jobId = message id) once the transaction that wrote their messages has committed: a
 * job never runs before its row is visible, and a rolled-back message never gets one. The jobs of a
 * transaction are added by a TypeORM subscriber right after its COMMIT, before the caller's `run`
 * resolves. If the process dies in between, or Redis refuses the add, the row stays `queued` and the
 * sweep (EmailSweep) adds its job a minute later: nothing committed is lost.
 */
@Injectable()
export class EmailSendJobs implements EntitySubscriberInterface {
  private readonly logger = new Logger(EmailSendJobs.name);
  private readonly pending = new WeakMap<QueryRunner, EmailSendPayload[]>();

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly jobs: JobQueue,
    private readonly config: AppConfig,
  ) {
    dataSource.subscribers.push(this);
  }

  /** Adds the job after `tx` commits; at once when there is no transaction. */
  async addAfterCommit(tx: EntityManager | undefined, payload: EmailSendPayload): Promise<void> {
    const runner = tx?.queryRunner;
    if (!runner?.isTransactionActive) return this.addSafely([payload]);
    const list = this.pending.get(runner);
    if (list) list.push(payload);
    else this.pending.set(runner, [payload]);
  }

  /** Adds the job now; adding a job whose id exists is a no-op. */
  add(payload: EmailSendPayload): Promise<void> {
    const { maxAttempts, retryBaseMs } = this.config.email;
    return this.jobs.add(JobName.EmailSend, payload, {
      jobId: payload.messageId,
      attempts: maxAttempts,
      backoff: { type: 'exponential', delay: retryBaseMs },
    });
  }

  /** How long BullMQ waits before the try after `attemptsMade` failed ones. */
  retryDelayMs(attemptsMade: number): number {
    return this.config.email.retryBaseMs * 2 ** Math.max(0, attemptsMade - 1);
  }

  async afterTransactionCommit(event: TransactionCommitEvent): Promise<void> {
    // Also broadcast when a savepoint is released: only the outermost commit counts.
    if (event.queryRunner.isTransactionActive) return;
    const list = this.pending.get(event.queryRunner);
    if (!list) return;
    this.pending.delete(event.queryRunner);
    await this.addSafely(list);
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    if (!event.queryRunner.isTransactionActive) this.pending.delete(event.queryRunner);
  }

  private async addSafely(payloads: EmailSendPayload[]): Promise<void> {
    try {
      await Promise.all(payloads.map((p) => this.add(p)));
    } catch (err) {
      // The messages are committed and queued; the sweep adds their jobs later.
      this.logger.warn(`adding ${payloads.length} email job(s) failed (${describeError(err)}); the sweep will add them`);
    }
  }
}
