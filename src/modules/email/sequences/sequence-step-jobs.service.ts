import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { uuidv7 } from '../../../common/ids';
import { describeError } from '../../../common/queue/job-handler';
import { JobOutbox } from '../../../common/queue/job-outbox';
import { JobQueue } from '../../../common/queue/job-queue';
import { JobName } from '../../../common/queue/queues';
import type { DueStep } from './enrollments.repository';

/** Chunks of Redis calls at once when an archive touches many steps. */
const CHUNK = 200;

/**
 * Step jobs: jobId `<enrollmentId>_<step>`, delayed until the step is due, recorded in the transaction
 * that made the step due (JobOutbox), so a job never runs ahead of its row and is never lost.
 */
@Injectable()
export class SequenceStepJobs {
  private readonly logger = new Logger(SequenceStepJobs.name);

  constructor(
    private readonly outbox: JobOutbox,
    private readonly jobs: JobQueue,
  ) {}

  static jobId(enrollmentId: string, step: number): string {
    return `${enrollmentId}_${step}`;
  }

  /**
   * Records the steps' jobs in `tx`. `resumed`: the steps of a resumed sequence get a job id of their own,
   * since the job that found the step held may still hold the plain id while it finishes (the step is
   * claimed by its number, so two jobs of one step still send once).
   */
  record(steps: readonly DueStep[], resumed: boolean, tx: EntityManager): Promise<void> {
    const tag = resumed ? `_r${uuidv7()}` : '';
    return this.outbox.addMany(
      steps.map((s) => ({
        name: JobName.EmailSequenceStep,
        payload: { enrollmentId: s.enrollmentId, step: s.step, tenantId: s.tenantId, mode: s.mode },
        options: {
          jobId: `${SequenceStepJobs.jobId(s.enrollmentId, s.step)}${tag}`,
          runAt: s.nextStepAt,
          dueBy: { tenantId: s.tenantId, mode: s.mode },
        },
      })),
      tx,
    );
  }

  /**
   * Removes waiting or delayed jobs (archived sequences), after the archive committed; a job left behind
   * (Redis away, a resumed step's own id) finds its enrolment ended and does nothing.
   */
  async remove(steps: readonly DueStep[]): Promise<void> {
    try {
      for (let i = 0; i < steps.length; i += CHUNK) {
        await Promise.all(
          steps.slice(i, i + CHUNK).map(async (s) => {
            const jobId = SequenceStepJobs.jobId(s.enrollmentId, s.step);
            if (await this.jobs.remove(JobName.EmailSequenceStep, jobId)) await this.outbox.done(jobId);
          }),
        );
      }
    } catch (err) {
      this.logger.warn(`removing ${steps.length} sequence step job(s) failed (${describeError(err)}); they end as stale`);
    }
  }
}
