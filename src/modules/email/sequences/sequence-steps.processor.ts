import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { OnJob, OnJobFailed } from '../../../common/queue/job-handler';
import { EmailSequenceStepPayload, JobName } from '../../../common/queue/queues';
import { SequenceSteps, StepOutcome } from './sequence-steps.service';

/** Runs sequence steps (idempotent: see SequenceSteps). Logs nothing of the patient. */
@Injectable()
export class SequenceStepsProcessor {
  constructor(private readonly steps: SequenceSteps) {}

  @OnJob(JobName.EmailSequenceStep)
  step(job: Job<EmailSequenceStepPayload>): Promise<StepOutcome> {
    const { enrollmentId, step, tenantId, mode } = job.data;
    return this.steps.run({ tenantId, mode }, enrollmentId, step);
  }

  @OnJobFailed(JobName.EmailSequenceStep)
  async failed({ enrollmentId, step, tenantId, mode }: EmailSequenceStepPayload, _jobId: string, reason: string): Promise<void> {
    await this.steps.fail({ tenantId, mode }, enrollmentId, step, reason);
  }
}
