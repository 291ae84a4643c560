import { InjectQueue } from '@nestjs/bullmq';
import { Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { v7 as uuidv7 } from 'uuid';
import { AuthContext } from '../../common/auth/auth.types';
import { ServiceUnavailableException } from '../../common/http/problem';
import { PatientImportJobName, PatientImportPayload, QueueName } from '../../common/queue/queues';
import { violates } from '../../database/database-errors';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { CustomFieldsService } from './custom-fields.service';
import { BulkImportAcceptedDto, BulkImportJobDto } from './dto/bulk-import.dto';
import { ImportRowError, PatientImportJobEntity } from './entities/patient-import-job.entity';
import { checkCreateRow, newPatientValues, providedFields } from './patient-input';
import { PatientImportsRepository } from './patient-imports.repository';
import { CustomFieldDefinition, generateJoiningCode } from './patient-rules';
import { ImportNotFoundException } from './patients.exceptions';
import { ImportRow, PatientConstraint, PatientsRepository } from './patients.repository';

/** Rows per transaction: large enough for few round trips, small enough to keep locks and WAL bursts short. */
export const IMPORT_BATCH_SIZE = 500;
const JOINING_CODE_ATTEMPTS = 5;
/**
 * An import this large can change the table's size many times over before autovacuum notices; stale
 * statistics then lead the planner to sort a whole tenant instead of walking the keyset index.
 */
const ANALYZE_AFTER_ROWS = 1000;

export const IMPORT_JOB_OPTIONS = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  removeOnComplete: { count: 1000 },
  removeOnFail: { count: 5000 },
} as const;

interface CheckedRows {
  valid: ImportRow[];
  errors: ImportRowError[];
  failed: number;
}

/**
 * Bulk import: the request stores the rows and enqueues a job; the worker validates and writes them in
 * batches. Each batch's writes and the advance of the job's `processed` cursor commit together, so a worker
 * that dies mid-job is retried from the last committed batch: no row lost, none written twice.
 */
@Injectable()
export class PatientImportsService {
  constructor(
    private readonly transactions: Transactions,
    @InjectQueue(QueueName.PatientImports) private readonly queue: Queue<PatientImportPayload>,
    private readonly imports: PatientImportsRepository,
    private readonly patients: PatientsRepository,
    private readonly customFields: CustomFieldsService,
  ) {}

  async submit(auth: AuthContext, rows: unknown[]): Promise<BulkImportAcceptedDto> {
    const values = {
      status: 'queued' as const,
      total: rows.length,
      processed: 0,
      created: 0,
      updated: 0,
      failed: 0,
      errors: [],
      rows,
      createdByKeyId: auth.apiKeyId,
      completedAt: null,
    };
    const job = await this.transactions.run(async (tx) => this.imports.insert(auth, values, tx));
    try {
      // The import id is the BullMQ jobId: adding it twice never runs it twice.
      await this.queue.add(
        PatientImportJobName.Import,
        { importId: job.id, tenantId: auth.tenantId, mode: auth.mode },
        { ...IMPORT_JOB_OPTIONS, jobId: job.id },
      );
    } catch {
      await this.imports.setStatus(auth, job.id, 'failed');
      throw new ServiceUnavailableException('The import could not be queued; try again shortly');
    }
    return { jobId: job.id, status: 'queued', total: rows.length };
  }

  /** Validates every row and writes nothing: the report an import of these rows would produce now. */
  async dryRun(auth: AuthContext, rows: unknown[]): Promise<BulkImportJobDto> {
    const checked = await this.check(rows, 0, await this.customFields.definitions(auth), firstIndexByExternalId(rows));
    const existing = await this.patients.existingExternalIds(
      auth,
      checked.valid.map((r) => r.values.externalId).filter((x): x is string => x !== null),
    );
    const updated = checked.valid.filter((r) => r.values.externalId !== null && existing.has(r.values.externalId)).length;
    return {
      jobId: null,
      status: 'completed',
      total: rows.length,
      processed: rows.length,
      created: checked.valid.length - updated,
      updated,
      failed: checked.failed,
      errors: checked.errors,
    };
  }

  async status(auth: AuthContext, jobId: string): Promise<BulkImportJobDto> {
    const job = await this.imports.findById(auth, jobId);
    if (!job) throw new ImportNotFoundException();
    return toDto(job);
  }

  /**
   * Runs (or resumes) an import from its persisted cursor. `maxBatches` stops early, as a worker dying
   * between two batches would (used by the tests of resumption).
   */
  async run(scope: TenantScope, importId: string, options: { maxBatches?: number } = {}): Promise<void> {
    const job = await this.imports.findById(scope, importId);
    if (!job || job.status === 'completed' || job.status === 'failed') return;
    if (job.status === 'queued') await this.imports.setStatus(scope, importId, 'running');
    const rows = await this.imports.rows(scope, importId);
    const definitions = await this.customFields.definitions(scope);
    const firstIndex = firstIndexByExternalId(rows);
    let from = job.processed;
    let batches = 0;
    while (from < rows.length) {
      if (options.maxBatches !== undefined && batches >= options.maxBatches) return;
      const slice = rows.slice(from, from + IMPORT_BATCH_SIZE);
      const checked = await this.check(slice, from, definitions, firstIndex);
      const advanced = await this.writeBatch(scope, importId, from, slice.length, checked);
      if (!advanced) return; // another worker moved the cursor: it owns the job now
      from += slice.length;
      batches++;
    }
    await this.imports.setStatus(scope, importId, 'completed');
    if (rows.length >= ANALYZE_AFTER_ROWS) await this.patients.refreshStatistics();
  }

  async markFailed(scope: TenantScope, importId: string): Promise<void> {
    await this.imports.setStatus(scope, importId, 'failed');
  }

  /** One batch in one transaction; a joining-code collision rolls it back and retries with fresh codes. */
  private async writeBatch(scope: TenantScope, importId: string, from: number, size: number, checked: CheckedRows): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.transactions.run(async (tx) => {
          const { created, updated } = await this.patients.upsertBatch(scope, checked.valid, tx);
          return this.imports.advance(
            scope,
            importId,
            from,
            { processed: size, created, updated, failed: checked.failed, errors: checked.errors },
            tx,
          );
        });
      } catch (err) {
        if (!violates(err, PatientConstraint.JoiningCode) || attempt >= JOINING_CODE_ATTEMPTS) throw err;
        for (const row of checked.valid) row.joiningCode = generateJoiningCode();
      }
    }
  }

  private async check(
    rows: unknown[],
    offset: number,
    definitions: ReadonlyMap<string, CustomFieldDefinition>,
    firstIndex: ReadonlyMap<string, number>,
  ): Promise<CheckedRows> {
    const out: CheckedRows = { valid: [], errors: [], failed: 0 };
    for (let i = 0; i < rows.length; i++) {
      const index = offset + i;
      const result = await checkCreateRow(rows[i], definitions);
      if (!result.ok) {
        out.failed++;
        for (const e of result.errors) out.errors.push({ index, ...e });
        continue;
      }
      const { input } = result;
      const externalId = input.set.externalId ?? undefined;
      const first = externalId !== undefined ? firstIndex.get(externalId) : undefined;
      if (first !== undefined && first !== index) {
        out.failed++;
        out.errors.push({ index, field: 'externalId', message: `duplicates the externalId of row ${first} of this import` });
        continue;
      }
      out.valid.push({
        index,
        id: uuidv7(),
        joiningCode: generateJoiningCode(),
        values: newPatientValues(input),
        provided: providedFields(input),
        customFieldsRemove: input.customFieldsRemove,
        customFieldsClear: input.customFieldsClear,
      });
    }
    return out;
  }
}

/** The first row of the import that carries each externalId; a later row with the same one is rejected. */
function firstIndexByExternalId(rows: unknown[]): Map<string, number> {
  const first = new Map<string, number>();
  rows.forEach((row, index) => {
    const externalId = (row as { externalId?: unknown } | null)?.externalId;
    if (typeof externalId === 'string' && !first.has(externalId)) first.set(externalId, index);
  });
  return first;
}

function toDto(job: PatientImportJobEntity): BulkImportJobDto {
  return {
    jobId: job.id,
    status: job.status,
    total: job.total,
    processed: job.processed,
    created: job.created,
    updated: job.updated,
    failed: job.failed,
    errors: job.errors,
  };
}
