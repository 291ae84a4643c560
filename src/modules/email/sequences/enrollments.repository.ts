import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { uuidv7 } from '../../../common/ids';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../../common/http/lists/pagination';
import { clock } from '../../../common/time/clock';
import { setClause } from '../../../database/set-clause';
import type { Mode, TenantScope } from '../../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../../database/tenant-scoped.repository';
import { SequenceEnrollmentEntity } from './entities/sequence-enrollment.entity';
import type { EnrollmentStatus } from './sequence-rules';

const COLUMNS = `id, tenant_id AS "tenantId", mode, sequence_id AS "sequenceId", patient_id AS "patientId", status,
  current_step AS "currentStep", next_step_at AS "nextStepAt", last_message_id AS "lastMessageId",
  ended_reason AS "endedReason", ended_at AS "endedAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** What the enrolment needs to know of a patient. */
export interface Enrollable {
  id: string;
  hasEmail: boolean;
  optedOut: boolean;
}

/** A step job to (re-)add: the enrolment, its current step and when that step is due. */
export interface DueStep {
  enrollmentId: string;
  step: number;
  /** A Date from the database, an ISO string once it has been through a transaction's (JSON) result. */
  nextStepAt: Date | string;
  tenantId: string;
  mode: Mode;
}

@Injectable()
export class EnrollmentsRepository extends TenantEntityRepository<SequenceEnrollmentEntity> {
  constructor(@InjectRepository(SequenceEnrollmentEntity) repository: Repository<SequenceEnrollmentEntity>) {
    super(repository);
  }

  /** The patients among `ids` that exist in the scope, with what decides whether they can be enrolled. */
  patients(scope: TenantScope, ids: string[], tx?: EntityManager): Promise<Enrollable[]> {
    return this.sql<Enrollable[]>(
      scope,
      `SELECT id, email IS NOT NULL AS "hasEmail", email_opt_out AS "optedOut"
         FROM patients WHERE tenant_id = $1 AND mode = $2 AND id = ANY($3::uuid[])`,
      [ids],
      tx,
    );
  }

  /**
   * Enrols the patients at step 0, due at `firstStepAt`; a patient enrolled before (in any status) is left
   * alone (ON CONFLICT DO NOTHING, also between concurrent requests). Answers the rows inserted.
   */
  insertNew(
    scope: TenantScope,
    sequenceId: string,
    patientIds: string[],
    firstStepAt: Date | null,
    tx: EntityManager,
  ): Promise<SequenceEnrollmentEntity[]> {
    const now = clock.now();
    const ids = patientIds.map(() => uuidv7());
    return this.sql<SequenceEnrollmentEntity[]>(
      scope,
      `INSERT INTO email_sequence_enrollments (id, tenant_id, mode, sequence_id, patient_id, status, current_step, next_step_at, created_at, updated_at)
       SELECT e.id, $1, $2, $3, e.patient_id, 'active', 0, $4, $5, $5
         FROM unnest($6::uuid[], $7::uuid[]) AS e(id, patient_id)
       ON CONFLICT (tenant_id, mode, sequence_id, patient_id) DO NOTHING
       RETURNING ${COLUMNS}`,
      [sequenceId, firstStepAt, now, ids, patientIds],
      tx,
    );
  }

  get(scope: TenantScope, id: string, tx?: EntityManager): Promise<SequenceEnrollmentEntity | null> {
    return this.findById(scope, id, tx);
  }

  /** Moves an enrolment to its next step, due at `nextStepAt`, after the message of the step it ran. */
  async advance(
    scope: TenantScope,
    id: string,
    nextStep: number,
    nextStepAt: Date,
    messageId: string | null,
    tx: EntityManager,
  ): Promise<SequenceEnrollmentEntity> {
    return this.set(scope, id, { current_step: nextStep, next_step_at: nextStepAt, last_message_id: messageId }, tx);
  }

  /** Ends an enrolment (completed after its last step, cancelled or failed with why). */
  async end(
    scope: TenantScope,
    id: string,
    status: Exclude<EnrollmentStatus, 'active'>,
    values: { currentStep?: number; messageId?: string | null; reason?: string | null },
    tx: EntityManager,
  ): Promise<SequenceEnrollmentEntity> {
    return this.set(
      scope,
      id,
      {
        status,
        next_step_at: null,
        ended_at: clock.now(),
        ended_reason: values.reason ?? null,
        ...(values.currentStep !== undefined ? { current_step: values.currentStep } : {}),
        ...(values.messageId !== undefined ? { last_message_id: values.messageId } : {}),
      },
      tx,
    );
  }

  /** Cancels every active enrolment of an archived sequence; answers their pending steps (to remove the jobs). */
  async cancelActive(scope: TenantScope, sequenceId: string, reason: string, tx: EntityManager): Promise<DueStep[]> {
    const [rows] = await this.sql<[DueStep[], number]>(
      scope,
      `UPDATE email_sequence_enrollments e SET status = 'cancelled', next_step_at = NULL, ended_at = $5, ended_reason = $4, updated_at = $5
        WHERE tenant_id = $1 AND mode = $2 AND sequence_id = $3 AND status = 'active'
        RETURNING e.id AS "enrollmentId", e.current_step AS "step", $5::timestamptz AS "nextStepAt", e.tenant_id AS "tenantId", e.mode`,
      [sequenceId, reason, clock.now()],
      tx,
    );
    return rows;
  }

  /** The active enrolments of a sequence whose step is due by `at` (held while it was paused). */
  due(scope: TenantScope, sequenceId: string, at: Date, tx?: EntityManager): Promise<DueStep[]> {
    return this.sql<DueStep[]>(
      scope,
      `SELECT id AS "enrollmentId", current_step AS "step", next_step_at AS "nextStepAt", tenant_id AS "tenantId", mode
         FROM email_sequence_enrollments
        WHERE tenant_id = $1 AND mode = $2 AND sequence_id = $3 AND status = 'active' AND next_step_at <= $4`,
      [sequenceId, at],
      tx,
    );
  }

  list(
    scope: TenantScope,
    sequenceId: string,
    filters: { status?: EnrollmentStatus },
    page: PageRequest,
    tx?: EntityManager,
  ): Promise<Page<SequenceEnrollmentEntity>> {
    const q = this.query(scope, 'e', tx).andWhere('e.sequence_id = :sequenceId', { sequenceId });
    if (filters.status) q.andWhere('e.status = :status', { status: filters.status });
    return this.paginate(q, page);
  }

  private async set(
    scope: TenantScope,
    id: string,
    columns: Record<string, unknown>,
    tx: EntityManager,
  ): Promise<SequenceEnrollmentEntity> {
    const set = setClause({ ...columns, updated_at: clock.now() }, 4); // $1 and $2 are the scope, $3 the id
    const [rows] = await this.sql<[SequenceEnrollmentEntity[], number]>(
      scope,
      `UPDATE email_sequence_enrollments SET ${set.sql}
        WHERE tenant_id = $1 AND mode = $2 AND id = $3 RETURNING ${COLUMNS}`,
      [id, ...set.params],
      tx,
    );
    return rows[0];
  }
}
