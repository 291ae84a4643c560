import { Injectable } from '@nestjs/common';
import type { Job } from 'bullmq';
import { EntityManager } from 'typeorm';
import { JobNotReadyError, OnJob, OnJobFailed } from '../../../common/queue/job-handler';
import { JobName, ReminderSendPayload } from '../../../common/queue/queues';
import { BusinessClock } from '../../../common/time/business-clock';
import type { TemplateAppointment } from '../../templates';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { Transactions } from '../../../database/transactions';
import { EventsService } from '../../events';
import { MessagingService, QueueOutcome, RefusalReason } from '../../messaging';
import { AppointmentsRepository } from '../appointments/appointments.repository';
import { AppointmentReminderEntity, ReminderStatus } from './entities/appointment-reminder.entity';
import { AppointmentEntity } from '../appointments/entities/appointment.entity';
import { ManageTokens } from '../self-service/manage-tokens';
import { ProvidersRepository } from '../providers/providers.repository';
import { RemindersRepository } from './reminders.repository';
import { reminderDto } from './reminders.service';
import { isActive } from '../appointments/transitions';
import { templateAppointment } from '../appointments/template-appointment';

interface Outcome {
  status: ReminderStatus;
  reason: string | null;
  messageId: string | null;
}

/**
 * Sends a reminder at its time, exactly once. Its job was recorded with its due time when the reminder was
 * planned; a job that runs before that time by the clock goes back to wait, and one whose reminder no longer
 * has that time, or is no longer scheduled, does nothing. One transaction locks the
 * appointment (shared, so a concurrent reschedule or cancel waits or is waited for, never crosses it), claims
 * the reminder row (still `scheduled`, FOR UPDATE: a second run waits, then finds it settled), queues its message through MessagingService.queue(…, tx)
 * and settles the reminder with the message's id. A crash anywhere rolls all of it back and the job runs
 * again; a job that finds its reminder settled or cancelled does nothing. Logs nothing of the patient.
 */
@Injectable()
export class ReminderSender {
  constructor(
    private readonly transactions: Transactions,
    private readonly reminders: RemindersRepository,
    private readonly appointments: AppointmentsRepository,
    private readonly providers: ProvidersRepository,
    private readonly messaging: MessagingService,
    private readonly events: EventsService,
    private readonly tokens: ManageTokens,
    private readonly clock: BusinessClock,
  ) {}

  @OnJob(JobName.ReminderSend)
  async run(job: Job<ReminderSendPayload>): Promise<ReminderStatus | 'settled'> {
    const { reminderId, appointmentId, sendAt, tenantId, mode } = job.data;
    const dueAt = Date.parse(sendAt);
    const scope: TenantScope = { tenantId, mode };
    // Early by the clock (it moved back since the job was timed): the job waits for the rest, with no attempt used.
    const now = await this.clock.nowMs(scope);
    if (dueAt > now) throw new JobNotReadyError(dueAt - now);
    return this.transactions.run(async (tx) => {
      // The appointment first, as every change of it locks it before its reminders: no deadlock.
      const appointment = await this.appointments.findByIdLocked(scope, appointmentId, tx, 'FOR SHARE');
      const reminder = appointment && (await this.reminders.claim(scope, reminderId, tx));
      if (!appointment || !reminder || reminder.sendAt.getTime() !== dueAt) return 'settled';
      const outcome = await this.outcome(scope, reminder, appointment, tx);
      const settled = await this.reminders.settle(scope, reminder, outcome, tx);
      if (settled.status === 'sent') {
        await this.events.record(scope, 'reminder.sent', { ...reminderDto(settled), appointmentId, patientId: appointment.patientId }, tx);
      }
      return settled.status;
    });
  }

  /** BullMQ gave up on the job (our own failures, retried with backoff): the reminder ends failed. */
  @OnJobFailed(JobName.ReminderSend)
  async failed({ reminderId, tenantId, mode }: ReminderSendPayload, _jobId: string, reason: string): Promise<void> {
    await this.reminders.failScheduled({ tenantId, mode }, reminderId, reason);
  }

  private async outcome(
    scope: TenantScope,
    reminder: AppointmentReminderEntity,
    appointment: AppointmentEntity,
    tx: EntityManager,
  ): Promise<Outcome> {
    // Ending an appointment cancels its reminders in the same transaction; this only guards that rule.
    if (!isActive(appointment.status)) return { status: 'cancelled', reason: `appointment_${appointment.status}`, messageId: null };
    const input = {
      kind: 'reminder' as const,
      patientId: appointment.patientId,
      appointmentId: appointment.id,
      templateId: reminder.templateId,
      appointment: await this.context(scope, appointment, tx),
    };
    return reminderOutcome(reminder.channel, await this.messaging.queue(scope, reminder.channel, input, tx));
  }

  /** `{{appointment.*}}`: local times in the provider's zone. */
  private async context(scope: TenantScope, appointment: AppointmentEntity, tx: EntityManager): Promise<TemplateAppointment> {
    const provider = (await this.providers.findById(scope, appointment.providerId, tx))!;
    const { startsAt, duration: durationMinutes, type: typeName } = appointment;
    return templateAppointment({ startsAt, durationMinutes, typeName, manageUrl: this.tokens.url(appointment.manageId) }, provider);
  }
}

/**
 * What a reminder records of its message: sent once queued; suppressed for an opt-out (the message says so
 * too), for a patient without an address or with a phone the practice may not text; failed when the template
 * is gone or cannot be rendered for this patient. Nothing is written for a refused message.
 */
function reminderOutcome(channel: 'email' | 'sms', queued: QueueOutcome): Outcome {
  switch (queued.status) {
    case 'queued':
      return { status: 'sent', reason: null, messageId: queued.messageId };
    case 'suppressed':
      return { status: 'suppressed', reason: 'opted_out', messageId: queued.messageId };
  }
  const refusals: Record<RefusalReason, Omit<Outcome, 'messageId'>> = {
    no_address: { status: 'suppressed', reason: channel === 'email' ? 'no_email' : 'no_phone' },
    not_textable: { status: 'suppressed', reason: 'phone_not_textable' },
    template_missing: { status: 'failed', reason: 'template_missing' },
    render_failed: { status: 'failed', reason: `render_failed: ${queued.message}` },
  };
  return { ...refusals[queued.reason], messageId: null };
}
