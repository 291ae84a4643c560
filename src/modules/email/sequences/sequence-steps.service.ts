import { Injectable } from '@nestjs/common';
import { JobNotReadyError } from '../../../common/queue/job-handler';
import { BusinessClock } from '../../../common/time/business-clock';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { AppConfig } from '../../../config/app-config';
import { Transactions } from '../../../database/transactions';
import { EventsService } from '../../events';
import { EmailMessagesRepository } from '../email-messages.repository';
import { EmailMessagesService } from '../email-messages.service';
import { EnrollmentsRepository } from './enrollments.repository';
import { stepDueAt } from './sequence-rules';
import { SequenceStepJobs } from './sequence-step-jobs.service';
import { SequencesRepository } from './sequences.repository';
import { dueStep, toEnrollmentDto } from './sequences.service';

/** A message in one of these statuses is done with: the next step may go. */
const SETTLED = ['sent', 'failed', 'suppressed'];
/** How often a step due behind an unsent previous message looks again. */
const PREVIOUS_STEP_WAIT_MS = 500;

/** What one run of a step did (for logs and tests). */
export type StepOutcome = 'sent' | 'completed' | 'held' | 'stale' | 'cancelled';

/**
 * Runs one step of one enrolment, in one transaction: the sequence row is share-locked (a PATCH waits for
 * running steps, and a step for a PATCH), then the enrolment row is locked and the step claimed by its
 * number, so a duplicated or re-run job does nothing. The step queues its message through
 * EmailMessagesService.queue in the same transaction (one message per enrolment and step, unique), then
 * moves the enrolment to the next step and records that step's delayed job (JobOutbox).
 */
@Injectable()
export class SequenceSteps {
  constructor(
    private readonly transactions: Transactions,
    private readonly sequences: SequencesRepository,
    private readonly enrollments: EnrollmentsRepository,
    private readonly messages: EmailMessagesService,
    private readonly messageRows: EmailMessagesRepository,
    private readonly events: EventsService,
    private readonly stepJobs: SequenceStepJobs,
    private readonly config: AppConfig,
    private readonly clock: BusinessClock,
  ) {}

  async run(scope: TenantScope, enrollmentId: string, step: number): Promise<StepOutcome> {
    // The sequence id never changes: read it unlocked, then lock sequence before enrolment (the order a
    // PATCH takes them in, so the two cannot deadlock).
    const plain = await this.enrollments.get(scope, enrollmentId);
    if (!plain || plain.status !== 'active' || plain.currentStep !== step) return 'stale';
    // In order: a step waits until the previous step's message has left (or failed, or was suppressed),
    // else two steps with short delays would race each other through the send queue.
    if (plain.lastMessageId && !(await this.settled(scope, plain.lastMessageId))) throw new JobNotReadyError(PREVIOUS_STEP_WAIT_MS);
    const { outcome } = await this.transactions.run(async (tx) => {
      const sequence = await this.sequences.findByIdLocked(scope, plain.sequenceId, tx, 'FOR KEY SHARE');
      const enrollment = await this.enrollments.findByIdLocked(scope, enrollmentId, tx);
      if (!sequence || !enrollment || enrollment.status !== 'active' || enrollment.currentStep !== step)
        return { outcome: 'stale' as const };
      // Held: the job ends here and the step is added again when the sequence is resumed.
      if (sequence.status === 'paused') return { outcome: 'held' as const };
      if (sequence.status !== 'active') {
        await this.enrollments.end(scope, enrollmentId, 'cancelled', { reason: `the sequence is ${sequence.status}` }, tx);
        return { outcome: 'cancelled' as const };
      }
      // Steps may have been removed while the sequence was paused: past the last one, the enrolment is done.
      if (step >= sequence.steps.length) {
        const ended = await this.enrollments.end(scope, enrollmentId, 'completed', { currentStep: sequence.steps.length }, tx);
        await this.events.record(scope, 'sequence.enrollment.completed', toEnrollmentDto(ended), tx);
        return { outcome: 'completed' as const };
      }
      const queued = await this.messages.queue(
        scope,
        {
          kind: 'sequence',
          patientId: enrollment.patientId,
          templateId: sequence.steps[step].templateId,
          sequenceId: sequence.id,
          enrollmentId,
          step,
        },
        tx,
      );
      if (queued.status === 'refused') {
        // The patient lost their email address since enrolling (an opted-out patient still gets a
        // `suppressed` message per step): nothing more can be sent, so the enrolment ends here.
        const why = `${queued.field} ${queued.message}`;
        await this.enrollments.end(scope, enrollmentId, 'cancelled', { reason: `step ${step} could not be queued: ${why}` }, tx);
        return { outcome: 'cancelled' as const };
      }
      const { messageId } = queued;
      const nextStep = step + 1;
      if (nextStep >= sequence.steps.length) {
        const ended = await this.enrollments.end(scope, enrollmentId, 'completed', { currentStep: nextStep, messageId }, tx);
        await this.events.record(scope, 'sequence.enrollment.completed', toEnrollmentDto(ended), tx);
        return { outcome: 'sent' as const };
      }
      const advanced = await this.enrollments.advance(
        scope,
        enrollmentId,
        nextStep,
        stepDueAt(sequence.steps, nextStep, await this.clock.now(scope, tx), this.config.sequences.minuteMs),
        messageId,
        tx,
      );
      await this.stepJobs.record([dueStep(advanced)], false, tx);
      return { outcome: 'sent' as const };
    });
    return outcome;
  }

  private async settled(scope: TenantScope, messageId: string): Promise<boolean> {
    const message = await this.messageRows.findById(scope, messageId);
    return !message || SETTLED.includes(message.status);
  }

  /** BullMQ gave up on a step (our own failures, retried): the enrolment ends `failed`, with why. */
  async fail(scope: TenantScope, enrollmentId: string, step: number, reason: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const enrollment = await this.enrollments.findByIdLocked(scope, enrollmentId, tx);
      if (enrollment?.status !== 'active' || enrollment.currentStep !== step) return;
      await this.enrollments.end(scope, enrollmentId, 'failed', { reason: `step ${step}: ${reason}`.slice(0, 500) }, tx);
    });
  }
}
