import ical, { ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { AppointmentDto } from './dto/appointment.dto';
import type { ProviderEntity } from '../providers/entities/provider.entity';
import type { AppointmentStatus } from './transitions';

const STATUS: Record<AppointmentStatus, ICalEventStatus> = {
  scheduled: ICalEventStatus.TENTATIVE,
  confirmed: ICalEventStatus.CONFIRMED,
  completed: ICalEventStatus.CONFIRMED,
  no_show: ICalEventStatus.CONFIRMED,
  cancelled: ICalEventStatus.CANCELLED,
};

/**
 * The appointment as an RFC 5545 calendar with one VEVENT, what a patient's calendar imports. Times are
 * UTC; the UID is the appointment's id, and SEQUENCE grows with each change, so a re-import updates the
 * event (a cancellation shows as STATUS:CANCELLED). Notes stay out: they are the practice's, not the patient's.
 * `cancel`: METHOD:CANCEL, which mail clients read as "remove this event" when a cancellation notice carries it.
 */
export function appointmentCalendar(
  appointment: AppointmentDto,
  provider: Pick<ProviderEntity, 'name' | 'email'>,
  practiceName: string,
  method: 'publish' | 'cancel' = 'publish',
): string {
  const calendar = ical({
    prodId: { company: 'Practice API', product: 'Scheduling', language: 'EN' },
    method: method === 'cancel' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.PUBLISH,
    name: practiceName,
  });
  const updatedAt = new Date(appointment.updatedAt);
  const createdAt = new Date(appointment.createdAt);
  calendar.createEvent({
    id: appointment.id,
    start: new Date(appointment.datetime),
    end: new Date(appointment.end),
    summary: `${appointment.type ?? 'Appointment'} with ${provider.name}`,
    status: STATUS[appointment.status],
    sequence: Math.max(0, Math.floor((updatedAt.getTime() - createdAt.getTime()) / 1000)),
    created: createdAt,
    lastModified: updatedAt,
    stamp: updatedAt,
    organizer: provider.email ? { name: provider.name, email: provider.email } : undefined,
  });
  return calendar.toString();
}
