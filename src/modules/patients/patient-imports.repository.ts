import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { ImportRowError, ImportStatus, PatientImportJobEntity } from './entities/patient-import-job.entity';

export interface BatchProgress {
  processed: number;
  created: number;
  updated: number;
  failed: number;
  errors: ImportRowError[];
}

@Injectable()
export class PatientImportsRepository extends TenantEntityRepository<PatientImportJobEntity> {
  constructor(@InjectRepository(PatientImportJobEntity) repository: Repository<PatientImportJobEntity>) {
    super(repository);
  }

  /** The submitted rows (a column the status reads leave out). */
  async rows(scope: TenantScope, id: string, tx?: EntityManager): Promise<unknown[]> {
    const found = await this.sql<{ rows: unknown[] }[]>(
      scope,
      `SELECT rows FROM patient_import_jobs WHERE tenant_id = $1 AND mode = $2 AND id = $3`,
      [id],
      tx,
    );
    return found[0]?.rows ?? [];
  }

  /**
   * A worker starts (or resumes) the import: marks it running and counts the starts in a row that found
   * the cursor where the previous start left it. Null if the import is gone or already finished.
   */
  async start(scope: TenantScope, id: string, tx?: EntityManager): Promise<{ processed: number; startsWithoutProgress: number } | null> {
    const [rows] = await this.sql<[{ processed: number; starts_without_progress: number }[], number]>(
      scope,
      `UPDATE patient_import_jobs
          SET status = 'running', updated_at = $4, started_at_row = processed,
              starts_without_progress = CASE WHEN started_at_row = processed THEN starts_without_progress + 1 ELSE 0 END
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status IN ('queued', 'running')
        RETURNING processed, starts_without_progress`,
      [id, clock.now()],
      tx,
    );
    return rows[0] ? { processed: rows[0].processed, startsWithoutProgress: rows[0].starts_without_progress } : null;
  }

  /** Ends an unfinished import as failed with its reason; false if it had already ended. */
  async fail(scope: TenantScope, id: string, reason: string, tx?: EntityManager): Promise<boolean> {
    const [, count] = await this.sql<[unknown[], number]>(
      scope,
      `UPDATE patient_import_jobs
          SET status = 'failed', failure_reason = $4, completed_at = $5, updated_at = $5
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND status IN ('queued', 'running')`,
      [id, reason, clock.now()],
      tx,
    );
    return count === 1;
  }

  async setStatus(scope: TenantScope, id: string, status: ImportStatus, tx?: EntityManager): Promise<void> {
    const at = clock.now();
    await this.update(
      scope,
      { id },
      { status, updatedAt: at, ...(status === 'completed' || status === 'failed' ? { completedAt: at } : {}) },
      tx,
    );
  }

  /**
   * Records a batch's outcome in the batch's transaction, but only if `processed` is still `from`: the
   * cursor moves exactly once per batch even if two workers ever ran the same job.
   */
  async advance(scope: TenantScope, id: string, from: number, progress: BatchProgress, tx?: EntityManager): Promise<boolean> {
    const [, count] = await this.sql<[unknown[], number]>(
      scope,
      `UPDATE patient_import_jobs
          SET processed = processed + $4, created = created + $5, updated = updated + $6, failed = failed + $7,
              errors = errors || $8::jsonb, updated_at = $10
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 AND processed = $9`,
      [id, progress.processed, progress.created, progress.updated, progress.failed, JSON.stringify(progress.errors), from, clock.now()],
      tx,
    );
    return count === 1;
  }
}
