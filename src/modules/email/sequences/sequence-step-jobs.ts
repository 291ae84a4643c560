import { Injectable, Logger } from '@nestjs/common';
import { describeError } from '../../../common/queue/job-handler';
import { JobQueue } from '../../../common/queue/job-queue';
import { JobName } from '../../../common/queue/queues';
import { clock } from '../../../common/time/clock';
import type { DueStep } from './enrollments.repository';

/** Chunks of Redis calls at once when a resume, an archive or a large enrolment touches many steps. */
const CHUNK = 200;

/**
 * Step jobs: jobId `<enrollmentId>_<step>`, delayed until the step is due. Added after the transaction
 * that made the step due has committed (a job never runs ahead of its row); if that add is lost (the
 * process died, Redis refused it), SequenceSweep adds it again, and adding an id that exists is a no-op.
 */
@Injectable()
export class SequenceStepJobs {
  private readonly logger = new Logger(SequenceStepJobs.name);

  constructor(private readonly jobs: JobQueue) {}

  static jobId(enrollmentId: string, step: number): string {
    return `${enrollmentId}_${step}`;
  }

  /** Adds the jobs; a failure is logged, not thrown: the steps are committed and the sweep adds them. */
  async add(steps: readonly DueStep[]): Promise<void> {
    const now = clock.nowMs(); // due times are on the clock; BullMQ's delay is a duration from here
    await this.inChunks(steps, 'adding', (s) =>
      this.jobs.add(
        JobName.EmailSequenceStep,
        { enrollmentId: s.enrollmentId, step: s.step, tenantId: s.tenantId, mode: s.mode },
        { jobId: SequenceStepJobs.jobId(s.enrollmentId, s.step), delay: Math.max(0, new Date(s.nextStepAt).getTime() - now) },
      ),
    );
  }

  /** Removes waiting or delayed jobs (archived sequences); a job that still runs finds its enrolment ended. */
  async remove(steps: readonly DueStep[]): Promise<void> {
    await this.inChunks(steps, 'removing', (s) =>
      this.jobs.remove(JobName.EmailSequenceStep, SequenceStepJobs.jobId(s.enrollmentId, s.step)),
    );
  }

  private async inChunks(steps: readonly DueStep[], what: string, fn: (step: DueStep) => Promise<unknown>): Promise<void> {
    try {
      for (let i = 0; i < steps.length; i += CHUNK) await Promise.all(steps.slice(i, i + CHUNK).map(fn));
    } catch (err) {
      this.logger.warn(`${what} ${steps.length} sequence step job(s) failed (${describeError(err)}); the sweep catches up`);
    }
  }
}
