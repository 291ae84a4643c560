import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { TenantScope } from '../../../database/tenant-owned.entity';
import type { EmailAttachment } from '../../email';
import { MessagingService, QueueOutcome } from '../../messaging';
import { SettingsService } from '../../settings';
import { appointmentCalendar } from '../appointments/appointment-calendar';
import type { AppointmentDto } from '../appointments/dto/appointment.dto';
import { templateAppointment } from '../appointments/template-appointment';
import { AppointmentTypesRepository } from '../appointment-types/appointment-types.repository';
import { AppointmentTypeEntity, NoticeChannel, NoticeEvent, NoticeTemplates } from '../appointment-types/entities/appointment-type.entity';
import { ProvidersRepository } from '../providers/providers.repository';
import { builtInNoticeEmail, builtInNoticeSms, noticeVariables } from './notice-text';

/** What a type says of its notices; an appointment without a type takes the defaults. */
interface NoticePolicy {
  enabled: Record<NoticeEvent, boolean>;
  channels: readonly NoticeChannel[];
  templates: NoticeTemplates;
}

const DEFAULTS: NoticePolicy = {
  enabled: { booked: true, rescheduled: true, cancelled: true },
  channels: ['email'],
  templates: {},
};

function policyOf(type: AppointmentTypeEntity | null): NoticePolicy {
  if (!type) return DEFAULTS;
  return {
    enabled: { booked: type.noticeBooked, rescheduled: type.noticeRescheduled, cancelled: type.noticeCancelled },
    channels: type.noticeChannels,
    templates: type.noticeTemplates,
  };
}

/**
 * Tells a patient that their appointment was booked, moved or cancelled: one message per channel of the
 * appointment's type, queued through MessagingService in the transaction of the change itself, so a
 * rolled-back change sends nothing and a committed one sends each once (the message pipeline's guarantee).
 * The email carries the appointment's .ics, stored with the message when it is queued: every try sends
 * the file as it was at the change, whatever happens to the appointment afterwards. A type's email template
 * replaces the built-in text; one gone since, or that cannot be rendered for this patient, falls back to it
 * rather than leave the patient untold. A patient without an address for a channel gets nothing by it.
 */
@Injectable()
export class BookingNotices {
  constructor(
    private readonly messaging: MessagingService,
    private readonly settings: SettingsService,
    private readonly types: AppointmentTypesRepository,
    private readonly providers: ProvidersRepository,
  ) {}

  /** `previousStart`: a move's former start. */
  async queue(
    scope: TenantScope,
    event: NoticeEvent,
    appointment: AppointmentDto,
    previousStart: Date | null,
    tx: EntityManager,
  ): Promise<void> {
    const type = appointment.appointmentTypeId ? await this.types.get(scope, appointment.appointmentTypeId, tx) : null;
    const policy = policyOf(type);
    if (!policy.enabled[event]) return;
    const provider = (await this.providers.findById(scope, appointment.providerId, tx))!;
    const practiceName = await this.settings.practiceName(scope, tx);
    const start = new Date(appointment.datetime);
    const base = {
      kind: 'booking_notice' as const,
      patientId: appointment.patientId,
      appointmentId: appointment.id,
      appointment: templateAppointment(
        { startsAt: start, durationMinutes: appointment.duration, typeName: appointment.type, manageUrl: appointment.manageUrl },
        provider,
      ),
      variables: { notice: noticeVariables(event, practiceName, start, previousStart, provider.timezone) },
    };
    for (const channel of policy.channels) {
      if (channel === 'sms') {
        await this.messaging.queue(scope, 'sms', { ...base, body: builtInNoticeSms(event) }, tx);
        continue;
      }
      const calendar = appointmentCalendar(appointment, provider, practiceName, event === 'cancelled' ? 'cancel' : 'publish');
      const attachments: EmailAttachment[] = [
        {
          filename: 'appointment.ics',
          contentType: `text/calendar; charset=utf-8; method=${event === 'cancelled' ? 'CANCEL' : 'PUBLISH'}`,
          content: calendar,
        },
      ];
      const templateId = policy.templates[event];
      const custom: QueueOutcome | null = templateId
        ? await this.messaging.queue(scope, 'email', { ...base, templateId, attachments }, tx)
        : null;
      if (custom && !(custom.status === 'refused' && (custom.reason === 'template_missing' || custom.reason === 'render_failed'))) continue;
      await this.messaging.queue(scope, 'email', { ...base, content: builtInNoticeEmail(event), attachments }, tx);
    }
  }
}
