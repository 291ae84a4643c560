import { DateTime } from 'luxon';
import type { TemplateAppointment } from '../../templates';

/**
 * `{{appointment.*}}` of a reminder's or a notice's template: the start as an instant and as the provider's
 * local date and time, so that a message reads as the practice's clock.
 */
export function templateAppointment(
  appointment: { startsAt: Date; durationMinutes: number; typeName: string | null; manageUrl: string },
  provider: { name: string; timezone: string },
): TemplateAppointment {
  const local = DateTime.fromJSDate(appointment.startsAt, { zone: provider.timezone });
  return {
    datetime: appointment.startsAt.toISOString(),
    localDate: local.toISODate()!,
    localTime: local.toFormat('HH:mm'),
    timezone: provider.timezone,
    durationMinutes: appointment.durationMinutes,
    providerName: provider.name,
    typeName: appointment.typeName,
    manageUrl: appointment.manageUrl,
  };
}
