import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { JobInterruptedError, OnJob, OnJobFailed } from '../../common/queue/job-handler';
import type { JobContext } from '../../common/queue/job-handler';
import { JobName, PatientImportPayload } from '../../common/queue/queues';
import { PatientImportsService } from './patient-imports.service';

/**
 * Runs bulk imports. Idempotent: a retried, resumed or duplicated job continues from the import's
 * committed cursor. Logs ids, counts and error classes only, never patient data.
 */
@Injectable()
export class PatientImportsProcessor {
  constructor(private readonly imports: PatientImportsService) {}

  @OnJob(JobName.PatientImport)
  async import(job: Job<PatientImportPayload>, { signal }: JobContext): Promise<void> {
    const { importId, tenantId, mode } = job.data;
    // On shutdown the import stops after its current batch and goes back to the queue.
    if ((await this.imports.run({ tenantId, mode }, importId, { signal })) === 'interrupted') throw new JobInterruptedError();
  }

  /** The queue gave up (attempts used up, or its workers kept dying): the import ends failed, with why. */
  @OnJobFailed(JobName.PatientImport)
  async failed({ importId, tenantId, mode }: PatientImportPayload, _jobId: string, reason: string): Promise<void> {
    await this.imports.markFailed({ tenantId, mode }, importId, reason);
  }
}
