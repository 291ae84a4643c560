import { Injectable, Logger } from '@nestjs/common';
import { uuidv7 } from '../../common/ids';
import { AuthContext } from '../../common/auth/auth.types';
import { JobFailure } from '../../common/queue/job-handler';
import { JobOutbox } from '../../common/queue/job-outbox';
import { JobQueue } from '../../common/queue/job-queue';
import { JobName } from '../../common/queue/queues';
import { violates } from '../../database/database-errors';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { EventsService } from '../events';
import { CustomFieldsService } from './custom-fields.service';
import { BulkImportAcceptedDto, BulkImportDryRunDto, BulkImportJobDto } from './dto/bulk-import.dto';
import { ImportRowError, PatientImportJobEntity } from './entities/patient-import-job.entity';
import { checkCreateRow, newPatientValues, providedFields } from './patient-input';
import { PatientImportsRepository } from './patient-imports.repository';
import { CustomFieldDefinition, generateJoiningCode } from './patient-rules';
import { ImportNotFoundException } from './patients.exceptions';
import { ImportRow, PatientConstraint, PatientsRepository } from './patients.repository';
import { toDto as toPatientDto, updatedEvent } from './patients.service';

/** Rows per transaction: large enough for few round trips, small enough to keep locks and WAL bursts short. */
export const IMPORT_BATCH_SIZE = 500;
const JOINING_CODE_ATTEMPTS = 5;
/**
 * An import this large can change the table's size many times over before autovacuum notices; stale
 * statistics then lead the planner to sort a whole tenant instead of walking the keyset index.
 */
const ANALYZE_AFTER_ROWS = 1000;

/**
 * Starts in a row that find the cursor where the previous one left it (each worker crashed, was killed or
 * met an error before committing a chunk) before the import fails instead of being tried again. Starts
 * that make progress reset the count, so an import survives any number of crashes while it advances.
 */
export const MAX_STARTS_WITHOUT_PROGRESS = 5;

/** How a run ended: the import is finished (or was already), or it stopped early and resumes later. */
export type ImportRunOutcome = 'finished' | 'interrupted';

interface CheckedRows {
  valid: ImportRow[];
  errors: ImportRowError[];
  failed: number;
}

/**
 * Bulk import: the request stores the rows and records its job (JobOutbox); the worker validates and writes them in
 * batches. Each batch's writes and the advance of the job's `processed` cursor commit together, so a worker
 * that dies mid-job is retried from the last committed batch: no row lost, none written twice.
 */
@Injectable()
export class PatientImportsService {
  private readonly logger = new Logger(PatientImportsService.name);

  constructor(
    private readonly transactions: Transactions,
    private readonly jobs: JobQueue,
    private readonly outbox: JobOutbox,
    private readonly imports: PatientImportsRepository,
    private readonly patients: PatientsRepository,
    private readonly customFields: CustomFieldsService,
    private readonly events: EventsService,
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
    const job = await this.transactions.run(async (tx) => {
      const inserted = await this.imports.insert(auth, values, tx);
      // The import id is the BullMQ jobId: adding it twice never runs it twice.
      const payload = { importId: inserted.id, tenantId: auth.tenantId, mode: auth.mode };
      await this.outbox.add(JobName.PatientImport, payload, { jobId: inserted.id }, tx);
      return inserted;
    });
    return { jobId: job.id, status: 'queued', total: rows.length };
  }

  /** Validates every row and writes nothing: the report an import of these rows would produce now. */
  async dryRun(auth: AuthContext, rows: unknown[]): Promise<BulkImportDryRunDto> {
    const checked = await this.check(rows, 0, await this.customFields.definitions(auth), firstIndexByExternalId(rows));
    const existing = await this.patients.existingExternalIds(
      auth,
      checked.valid.map((r) => r.values.externalId).filter((x): x is string => x !== null),
    );
    const wouldUpdate = checked.valid.filter((r) => r.values.externalId !== null && existing.has(r.values.externalId)).length;
    return {
      jobId: null,
      dryRun: true,
      status: 'completed',
      total: rows.length,
      processed: rows.length,
      created: 0,
      updated: 0,
      wouldCreate: checked.valid.length - wouldUpdate,
      wouldUpdate,
      failed: checked.failed,
      errors: checked.errors,
      failureReason: null,
    };
  }

  async status(auth: AuthContext, jobId: string): Promise<BulkImportJobDto> {
    let job = await this.imports.findById(auth, jobId);
    if (!job) throw new ImportNotFoundException();
    if (job.status === 'queued' || job.status === 'running') {
      // The queue may have given up on the job while no worker heard it (all of them down at that moment).
      const reason = await this.jobs.finalFailure(JobName.PatientImport, jobId).catch(() => null);
      if (reason) {
        await this.markFailed(auth, jobId, reason);
        job = (await this.imports.findById(auth, jobId)) ?? job;
      }
    }
    return toDto(job);
  }

  /**
   * Runs (or resumes) an import from its persisted cursor. It stops early, answering 'interrupted', when
   * `signal` is aborted (between two batches, after the last commit) or after `maxBatches` (as a worker
   * dying between two batches would; used by the tests of resumption). Throws a final JobFailure when
   * the import has been started too often without progress, after marking it failed.
   */
  async run(scope: TenantScope, importId: string, options: { maxBatches?: number; signal?: AbortSignal } = {}): Promise<ImportRunOutcome> {
    const started = await this.imports.start(scope, importId);
    if (!started) return 'finished';
    if (started.startsWithoutProgress >= MAX_STARTS_WITHOUT_PROGRESS) {
      const reason = `it was started ${started.startsWithoutProgress} times in a row at row ${started.processed} without completing a batch (its worker crashed, was stopped or met an error each time)`;
      await this.markFailed(scope, importId, reason);
      throw new JobFailure(reason, true);
    }
    const rows = await this.imports.rows(scope, importId);
    const definitions = await this.customFields.definitions(scope);
    const firstIndex = firstIndexByExternalId(rows);
    let from = started.processed;
    let batches = 0;
    while (from < rows.length) {
      if (options.signal?.aborted || (options.maxBatches !== undefined && batches >= options.maxBatches)) return 'interrupted';
      const slice = rows.slice(from, from + IMPORT_BATCH_SIZE);
      const checked = await this.check(slice, from, definitions, firstIndex);
      const advanced = await this.writeBatch(scope, importId, from, slice.length, checked);
      if (!advanced) return 'finished'; // another worker moved the cursor: it owns the import now
      from += slice.length;
      batches++;
    }
    await this.imports.setStatus(scope, importId, 'completed');
    if (rows.length >= ANALYZE_AFTER_ROWS) await this.patients.refreshStatistics();
    return 'finished';
  }

  /** Ends an unfinished import as failed, once, with a reason that holds no row data; logs it. */
  async markFailed(scope: TenantScope, importId: string, reason: string): Promise<void> {
    if (await this.imports.fail(scope, importId, reason)) this.logger.warn(`import ${importId} failed: ${reason}`);
  }

  /**
   * One batch in one transaction; a joining-code collision rolls it back and retries with fresh codes.
   * False, with nothing written, if another worker has already committed this batch.
   */
  private async writeBatch(scope: TenantScope, importId: string, from: number, size: number, checked: CheckedRows): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.transactions.run(async (tx) => {
          const { created, updated } = await this.patients.upsertBatch(scope, checked.valid, tx);
          await this.events.recordMany(scope, 'patient.created', created.map(toPatientDto), tx);
          const changes = updated.map((u) => updatedEvent(u.before && toPatientDto(u.before), toPatientDto(u.after)));
          await this.events.recordMany(scope, 'patient.updated', changes, tx);
          const progress = {
            processed: size,
            created: created.length,
            updated: updated.length,
            failed: checked.failed,
            errors: checked.errors,
          };
          // Rolls the batch's writes back: committing them beside another worker's would duplicate rows.
          if (!(await this.imports.advance(scope, importId, from, progress, tx))) throw new CursorMoved();
        });
        return true;
      } catch (err) {
        if (err instanceof CursorMoved) return false;
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

/** Another worker committed the batch first (a job BullMQ believed stalled ran twice for a while). */
class CursorMoved extends Error {}

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
    dryRun: false,
    status: job.status,
    total: job.total,
    processed: job.processed,
    created: job.created,
    updated: job.updated,
    failed: job.failed,
    errors: job.errors,
    failureReason: job.failureReason,
  };
}
