import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import { PatientImportPayload, QueueName } from '../../common/queue/queues';
import { PatientImportsService } from './patient-imports.service';

/**
 * Runs bulk imports. Idempotent: a retried or duplicated job resumes from the import's persisted cursor.
 * Logs ids and counts only, never patient data.
 */
@Processor(QueueName.PatientImports, { concurrency: 2 })
export class PatientImportsProcessor extends WorkerHost {
  private readonly logger = new Logger(PatientImportsProcessor.name);

  constructor(private readonly imports: PatientImportsService) {
    super();
  }

  async process(job: Job<PatientImportPayload>): Promise<void> {
    const { importId, tenantId, mode } = job.data;
    const scope = { tenantId, mode };
    try {
      await this.imports.run(scope, importId);
    } catch (err) {
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      // The error's class and SQLSTATE only: a driver message can quote a row's values.
      const { name, code } = err as { name?: string; code?: string };
      this.logger.warn(`import ${importId} attempt ${job.attemptsMade + 1} failed: ${name ?? 'Error'}${code ? ` (${code})` : ''}`);
      if (lastAttempt) await this.imports.markFailed(scope, importId);
      throw err;
    }
  }
}
