import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { JobOutbox } from '../../../common/queue/job-outbox';
import { JobName } from '../../../common/queue/queues';
import { BusinessClock } from '../../../common/time/business-clock';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { AppointmentReminderDto } from '../appointments/dto/appointment.dto';
import { AppointmentReminderEntity } from './entities/appointment-reminder.entity';
import type { ReminderRule } from '../appointment-types/entities/appointment-type.entity';
import { planReminder } from './reminder-plan';
import { RemindersRepository } from './reminders.repository';

/** Why an appointment's planned reminders were cancelled, by what happened to it. */
export type ReminderCancelReason = 'rescheduled' | 'appointment_cancelled' | 'appointment_no_show' | 'appointment_completed';

/**
 * Plans and cancels an appointment's reminders inside the transaction that books, moves or ends it, so a
 * rolled-back change plans nothing. Each scheduled reminder's send job is recorded in that transaction
 * with its due time on the scope's business clock (JobOutbox `runAt`, `dueBy`); ReminderSender sends it
 * then. Cancelling a reminder forgets its job in the same transaction.
 */
@Injectable()
export class RemindersService {
  constructor(
    private readonly reminders: RemindersRepository,
    private readonly outbox: JobOutbox,
    private readonly clock: BusinessClock,
  ) {}

  /** A reminder's send job: one per reminder and due time. */
  static jobId(reminder: { id: string; sendAt: Date }): string {
    return `${reminder.id}_${reminder.sendAt.getTime()}`;
  }

  /**
   * One reminder per rule of the appointment's type, at start − offset (see planReminder), in the provider's
   * `zone`; answers them as the API does.
   */
  async plan(
    scope: TenantScope,
    appointment: { id: string; startsAt: Date },
    rules: readonly ReminderRule[],
    zone: string,
    tx: EntityManager,
  ): Promise<AppointmentReminderDto[]> {
    if (!rules.length) return [];
    const now = await this.clock.nowMs(scope, tx);
    const rows = await this.reminders.insertMany(
      scope,
      rules.map((rule) => {
        const planned = planReminder(rule, appointment.startsAt.getTime(), now, zone);
        return {
          appointmentId: appointment.id,
          channel: rule.channel,
          offsetMinutes: rule.offsetMinutes,
          templateId: rule.templateId,
          ...planned,
          messageId: null,
        };
      }),
      tx,
    );
    await this.outbox.addMany(
      rows
        .filter((r) => r.status === 'scheduled')
        .map((r) => ({
          name: JobName.ReminderSend,
          payload: {
            reminderId: r.id,
            appointmentId: r.appointmentId,
            sendAt: r.sendAt.toISOString(),
            tenantId: scope.tenantId,
            mode: scope.mode,
          },
          options: { jobId: RemindersService.jobId(r), runAt: r.sendAt, dueBy: scope },
        })),
      tx,
    );
    return rows.sort((a, b) => a.sendAt.getTime() - b.sendAt.getTime() || (a.id < b.id ? -1 : 1)).map(reminderDto);
  }

  /** Cancels the appointment's reminders that have not gone out, and forgets their send jobs. */
  async cancel(scope: TenantScope, appointmentId: string, reason: ReminderCancelReason, tx: EntityManager): Promise<void> {
    const cancelled = await this.reminders.cancelScheduled(scope, appointmentId, reason, tx);
    await this.outbox.forget(
      JobName.ReminderSend,
      cancelled.map((r) => RemindersService.jobId(r)),
      tx,
    );
  }

  /** The reminders of each of these appointments, as the API answers them. */
  async of(scope: TenantScope, appointmentIds: string[], tx?: EntityManager): Promise<Map<string, AppointmentReminderDto[]>> {
    const byAppointment = new Map<string, AppointmentReminderDto[]>(appointmentIds.map((id) => [id, []]));
    for (const row of await this.reminders.forAppointments(scope, appointmentIds, tx))
      byAppointment.get(row.appointmentId)?.push(reminderDto(row));
    return byAppointment;
  }
}

export function reminderDto(row: AppointmentReminderEntity): AppointmentReminderDto {
  return {
    id: row.id,
    channel: row.channel,
    offsetMinutes: row.offsetMinutes,
    sendAt: row.sendAt.toISOString(),
    status: row.status,
    reason: row.reason,
    messageId: row.messageId,
  };
}
