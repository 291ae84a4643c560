import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../../common/auth/auth.types';
import { PageRequest } from '../../../common/http/lists/pagination';
import { FieldError, ValidationFailedException } from '../../../common/http/errors/problem';
import { BusinessClock } from '../../../common/time/business-clock';
import { clock } from '../../../common/time/clock';
import { ReadReplicas } from '../../../database/read-replicas';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { AppConfig } from '../../../config/app-config';
import { Transactions } from '../../../database/transactions';
import { EventsService } from '../../events';
import { noSuchPatient } from '../../patients';
import { EmailTemplatesService } from '../email-templates.service';
import {
  CreateSequenceDto,
  EnrollDto,
  EnrollmentDto,
  EnrollmentListDto,
  EnrollResultDto,
  ListEnrollmentsQueryDto,
  ListSequencesQueryDto,
  SequenceCreatedDto,
  SequenceDto,
  SequenceListDto,
  SequenceStepDto,
  UpdateSequenceDto,
} from './dto/sequence.dto';
import { EmailSequenceEntity } from './entities/email-sequence.entity';
import { SequenceEnrollmentEntity } from './entities/sequence-enrollment.entity';
import { DueStep, EnrollmentsRepository } from './enrollments.repository';
import { canTransition, SequenceStep, stepDueAt, stepsEditable } from './sequence-rules';
import { SequenceStepJobs } from './sequence-step-jobs.service';
import { SequenceNotActiveException, SequenceNotFoundException, SequenceTransitionException } from './sequences.exceptions';
import { SequencesRepository } from './sequences.repository';

export const ARCHIVED_REASON = 'the sequence was archived';

/** Sequences (CRUD and lifecycle) and enrolment; the steps themselves run in SequenceSteps (a worker). */
@Injectable()
export class SequencesService {
  constructor(
    private readonly transactions: Transactions,
    private readonly sequences: SequencesRepository,
    private readonly enrollments: EnrollmentsRepository,
    private readonly templates: EmailTemplatesService,
    private readonly events: EventsService,
    private readonly stepJobs: SequenceStepJobs,
    private readonly config: AppConfig,
    private readonly clock: BusinessClock,
    private readonly replicas: ReadReplicas,
  ) {}

  async create(auth: AuthContext, dto: CreateSequenceDto): Promise<SequenceCreatedDto> {
    const steps = await this.checkedSteps(auth, dto.steps ?? []);
    return this.transactions.run(async (tx) => {
      const row = await this.sequences.create(auth, { name: dto.name.trim(), description: dto.description?.trim() || null, steps }, tx);
      return { message: 'Sequence created' as const, sequence: toSequenceDto(row) };
    });
  }

  async list(auth: AuthContext, query: ListSequencesQueryDto, page: PageRequest): Promise<SequenceListDto> {
    const result = await this.replicas.read((db) => this.sequences.list(auth, { status: query.status }, page, db));
    return { sequences: result.items.map(toSequenceDto), nextCursor: result.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<SequenceDto> {
    return toSequenceDto(await this.require(auth, id));
  }

  /**
   * Name, description, status and steps. Status follows draft → active ⇄ paused, any → archived (final);
   * steps change only while draft or paused. Resuming re-adds the steps that fell due meanwhile;
   * archiving cancels every active enrolment and removes their pending jobs.
   */
  async update(auth: AuthContext, id: string, dto: UpdateSequenceDto): Promise<SequenceDto> {
    const steps = dto.steps === undefined ? undefined : await this.checkedSteps(auth, dto.steps);
    const { sequence, cancelled } = await this.transactions.run(async (tx) => {
      const current = await this.sequences.findByIdLocked(auth, id, tx);
      if (!current) throw new SequenceNotFoundException();
      const next = dto.status ?? current.status;
      if (!canTransition(current.status, next)) {
        throw new SequenceTransitionException(`A sequence cannot go from ${current.status} to ${next}`, 'status');
      }
      if (steps !== undefined && !stepsEditable(current.status, next)) {
        throw new SequenceTransitionException(`Steps change only while the sequence is draft or paused; it is ${current.status}`, 'steps');
      }
      if (next === 'active' && (steps ?? current.steps).length === 0) {
        throw new ValidationFailedException([{ field: 'steps', message: 'must hold at least one step before the sequence is active' }]);
      }
      const updated = await this.sequences.applyPatch(
        auth,
        id,
        {
          name: dto.name?.trim(),
          description: dto.description === undefined ? undefined : dto.description?.trim() || null,
          status: dto.status,
          steps,
        },
        tx,
      );
      if (current.status === 'paused' && next === 'active') {
        await this.stepJobs.record(await this.enrollments.due(auth, id, await this.clock.now(auth, tx), tx), true, tx);
      }
      return {
        sequence: toSequenceDto(updated),
        // Plain data: a replay under the same Idempotency-Key gets these back (see Transactions.run).
        cancelled:
          next === 'archived' && current.status !== 'archived'
            ? plainSteps(await this.enrollments.cancelActive(auth, id, ARCHIVED_REASON, tx))
            : [],
      };
    });
    await this.stepJobs.remove(cancelled);
    return sequence;
  }

  /**
   * Enrols 1–1,000 patients in an active sequence: patients without an email address or who opted out are
   * skipped, patients enrolled before are left alone, the others start at step 0 (after its delay). The
   * sequence row is locked meanwhile, so a PATCH waits and the enrolment count moves by exactly the rows
   * inserted; each enrolment records `sequence.enrollment.created` in the same transaction.
   */
  async enroll(auth: AuthContext, id: string, dto: EnrollDto): Promise<EnrollResultDto> {
    const patientIds = [...new Set(dto.patientIds.map((p) => p.toLowerCase()))];
    return this.transactions.run(async (tx) => {
      const sequence = await this.sequences.findByIdLocked(auth, id, tx, 'FOR NO KEY UPDATE');
      if (!sequence) throw new SequenceNotFoundException();
      if (sequence.status !== 'active') throw new SequenceNotActiveException(sequence.status);
      const found = new Map((await this.enrollments.patients(auth, patientIds, tx)).map((p) => [p.id, p]));
      const unknown: FieldError[] = dto.patientIds
        .map((pid, index) => ({ pid: pid.toLowerCase(), index }))
        .filter(({ pid }) => !found.has(pid))
        .map(({ index }) => noSuchPatient(`patientIds.${index}`));
      if (unknown.length) throw new ValidationFailedException(unknown);
      const eligible = patientIds.filter((pid) => found.get(pid)!.hasEmail && !found.get(pid)!.optedOut);
      const inserted = eligible.length
        ? await this.enrollments.insertNew(
            auth,
            id,
            eligible,
            stepDueAt(sequence.steps, 0, await this.clock.now(auth, tx), this.config.sequences.minuteMs),
            tx,
          )
        : [];
      if (inserted.length) {
        await this.sequences.countEnrollments(auth, id, inserted.length, tx);
        await this.events.recordMany(auth, 'sequence.enrollment.created', inserted.map(toEnrollmentDto), tx);
        await this.stepJobs.record(inserted.map(dueStep), false, tx);
      }
      return {
        enrolled: inserted.length,
        alreadyEnrolled: eligible.length - inserted.length,
        skipped: patientIds.length - eligible.length,
      };
    });
  }

  async listEnrollments(auth: AuthContext, id: string, query: ListEnrollmentsQueryDto, page: PageRequest): Promise<EnrollmentListDto> {
    await this.require(auth, id);
    const result = await this.replicas.read((db) => this.enrollments.list(auth, id, { status: query.status }, page, db));
    return { enrollments: result.items.map(toEnrollmentDto), nextCursor: result.nextCursor };
  }

  private async require(scope: TenantScope, id: string): Promise<EmailSequenceEntity> {
    const row = await this.sequences.get(scope, id);
    if (!row) throw new SequenceNotFoundException();
    return row;
  }

  /** The steps as stored, or 400 naming each step whose template is not the caller's (`steps.<i>.templateId`). */
  private async checkedSteps(scope: TenantScope, dtos: SequenceStepDto[]): Promise<SequenceStep[]> {
    const steps = dtos.map((s) => ({ templateId: s.templateId.toLowerCase(), delayMinutes: s.delayMinutes }));
    const unique = [...new Set(steps.map((s) => s.templateId))];
    const exists = new Map(await Promise.all(unique.map(async (t) => [t, await this.templates.allExist(scope, [t])] as const)));
    const errors = steps.flatMap((s, i) =>
      exists.get(s.templateId) ? [] : [{ field: `steps.${i}.templateId`, message: 'names no email template of this tenant and mode' }],
    );
    if (errors.length) throw new ValidationFailedException(errors);
    return steps;
  }
}

/** DueSteps with ISO dates: what a transaction answers must survive a JSON round trip (idempotency replays). */
function plainSteps(steps: DueStep[]): DueStep[] {
  return steps.map((s) => ({ ...s, nextStepAt: new Date(s.nextStepAt).toISOString() }));
}

export function dueStep(row: SequenceEnrollmentEntity): DueStep {
  return { enrollmentId: row.id, step: row.currentStep, nextStepAt: row.nextStepAt ?? clock.now(), tenantId: row.tenantId, mode: row.mode };
}

export function toSequenceDto(row: EmailSequenceEntity): SequenceDto {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    steps: row.steps,
    enrollmentCount: row.enrollmentCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function toEnrollmentDto(row: SequenceEnrollmentEntity): EnrollmentDto {
  const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);
  return {
    id: row.id,
    sequenceId: row.sequenceId,
    patientId: row.patientId,
    status: row.status,
    currentStep: row.currentStep,
    nextStepAt: iso(row.nextStepAt),
    lastMessageId: row.lastMessageId,
    endedReason: row.endedReason,
    endedAt: iso(row.endedAt),
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}
