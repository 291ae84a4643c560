import type { EventDto } from '../../src/modules/events/dto/event.dto';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';

/** An event with its data typed as what its type carries (EventDto, for every type at once, types it as a record). */
export type EventOf<Data> = Omit<EventDto, 'data'> & { data: Data };

/** A page of GET /events?type=… for one type. */
export interface EventPageOf<Data> {
  events: EventOf<Data>[];
  nextCursor: string | null;
}

/** The data of an appointment.* change event: the appointment after it, what it was before, and who made it. */
export interface AppointmentChanged {
  appointment: AppointmentDto;
  previous: Record<string, unknown>;
  source: string;
}
