import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../../common/http/lists/pagination';
import { clock } from '../../../common/time/clock';
import { setClause } from '../../../database/set-clause';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../../database/tenant-scoped.repository';
import { EmailSequenceEntity } from './entities/email-sequence.entity';
import type { SequenceStatus, SequenceStep } from './sequence-rules';

export interface SequencePatch {
  name?: string;
  description?: string | null;
  status?: SequenceStatus;
  steps?: SequenceStep[];
}

const COLUMNS = `id, tenant_id AS "tenantId", mode, name, description, status, steps, enrollment_count AS "enrollmentCount",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * Row locks (findByIdLocked), and why each: a PATCH takes FOR UPDATE (it changes status and steps); an
 * enrolment takes FOR NO KEY UPDATE (it must see `active` and bumps the count, and waits for a PATCH); a
 * step takes FOR KEY SHARE (it must not run across a PATCH, but steps and enrolments run side by side).
 */
@Injectable()
export class SequencesRepository extends TenantEntityRepository<EmailSequenceEntity> {
  constructor(@InjectRepository(EmailSequenceEntity) repository: Repository<EmailSequenceEntity>) {
    super(repository);
  }

  get(scope: TenantScope, id: string, tx?: EntityManager): Promise<EmailSequenceEntity | null> {
    return this.findById(scope, id, tx);
  }

  create(
    scope: TenantScope,
    values: { name: string; description: string | null; steps: SequenceStep[] },
    tx?: EntityManager,
  ): Promise<EmailSequenceEntity> {
    return this.insert(scope, { ...values, status: 'draft', enrollmentCount: 0 }, tx);
  }

  /** Applies a patch to a sequence locked by findByIdLocked (FOR UPDATE); answers the new row. */
  async applyPatch(scope: TenantScope, id: string, patch: SequencePatch, tx: EntityManager): Promise<EmailSequenceEntity> {
    // $1 and $2 are the scope, $3 the id; steps go as JSON text, which PostgreSQL casts to jsonb.
    const set = setClause(
      { ...patch, steps: patch.steps === undefined ? undefined : JSON.stringify(patch.steps), updated_at: clock.now() },
      4,
    );
    const [rows] = await this.sql<[EmailSequenceEntity[], number]>(
      scope,
      `UPDATE email_sequences SET ${set.sql} WHERE tenant_id = $1 AND mode = $2 AND id = $3 RETURNING ${COLUMNS}`,
      [id, ...set.params],
      tx,
    );
    return rows[0];
  }

  /** Adds `count` enrolments in one statement, in the enrolment's transaction: exact under concurrency. */
  async countEnrollments(scope: TenantScope, id: string, count: number, tx: EntityManager): Promise<void> {
    await this.sql(
      scope,
      `UPDATE email_sequences SET enrollment_count = enrollment_count + $4 WHERE tenant_id = $1 AND mode = $2 AND id = $3`,
      [id, count],
      tx,
    );
  }

  list(
    scope: TenantScope,
    filters: { status?: SequenceStatus },
    page: PageRequest,
    tx?: EntityManager,
  ): Promise<Page<EmailSequenceEntity>> {
    const q = this.query(scope, 's', tx);
    if (filters.status) q.andWhere('s.status = :status', { status: filters.status });
    return this.paginate(q, page);
  }
}
