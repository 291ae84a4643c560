import type { AuthContext } from '../common/auth/auth.types';
import { EXAMPLE_APPOINTMENT_HOURS_UTC } from '../common/http/openapi/example-dates';
import { clock } from '../common/time/clock';
import { BookingPagesService } from '../modules/booking-pages/booking-pages.service';
import { AppointmentsService } from '../modules/scheduling/appointments/appointments.service';
import { AppointmentTypesService } from '../modules/scheduling/appointment-types/appointment-types.service';
import { AvailabilityService } from '../modules/scheduling/availability/availability.service';
import type { CreateAppointmentTypeDto, ReminderRuleDto } from '../modules/scheduling/appointment-types/dto/appointment-type.dto';
import type { AvailabilityQueryDto } from '../modules/scheduling/availability/dto/availability.dto';
import type { CreateProviderDto } from '../modules/scheduling/providers/dto/provider.dto';
import { ProvidersService } from '../modules/scheduling/providers/providers.service';
import { APPOINTMENT_STATUSES } from '../modules/scheduling/appointments/transitions';

export const DEMO_SCHEDULER_SLUG = 'new-patient-consultation';

const weekdays = (start: string, end: string) => [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start, end }));

/** Two providers, an ocean apart: availability is computed in each one's own timezone. */
export const DEMO_PROVIDERS: CreateProviderDto[] = [
  {
    name: 'Dr. Maya Chen',
    email: 'maya.chen@riverside.example',
    timezone: 'America/New_York',
    // A lunch break: two intervals a day.
    workingHours: [...weekdays('09:00', '12:00'), ...weekdays('13:00', '17:00')],
  },
  {
    name: 'Dr. Tom Okafor',
    email: 'tom.okafor@riverside.example',
    timezone: 'Europe/London',
    workingHours: [...weekdays('08:30', '16:30'), { weekday: 6, start: '09:00', end: '12:00' }],
  },
];

/**
 * A long first visit with time to write it up after, booked four hours ahead at least (less than the API's
 * booking examples ever are: they book next Monday), and a short follow-up.
 */
export const DEMO_APPOINTMENT_TYPES: CreateAppointmentTypeDto[] = [
  { name: 'New patient', durationMinutes: 60, bufferAfterMinutes: 15, minimumNoticeMinutes: 240 },
  { name: 'Follow-up', durationMinutes: 20 },
];

export interface DemoSchedulingServices {
  providers: ProvidersService;
  types: AppointmentTypesService;
  availability: AvailabilityService;
  appointments: AppointmentsService;
  schedulers: BookingPagesService;
}

const DAY = 86_400_000;
const dateOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const minuteOfDay = (iso: string): number => new Date(iso).getUTCHours() * 60 + new Date(iso).getUTCMinutes();
/** A slot that leaves the request examples' hours free (a slot ending at midnight counts as the day's end). */
const clearOfExamples = (slot: { start: string; end: string }): boolean =>
  minuteOfDay(slot.start) >= EXAMPLE_APPOINTMENT_HOURS_UTC.to * 60 ||
  (minuteOfDay(slot.end) <= EXAMPLE_APPOINTMENT_HOURS_UTC.from * 60 && minuteOfDay(slot.end) > minuteOfDay(slot.start));

/**
 * Providers with working hours and time off, two appointment types (each with `reminders`), appointments of both types in every status spread over the next two
 * weeks, and an active scheduler (public booking page) over both providers. Safe to run twice: the
 * scheduler's slug marks a seeded tenant, and a second run adds nothing.
 */
export async function seedDemoScheduling(
  auth: AuthContext,
  services: DemoSchedulingServices,
  patientIds: string[],
  reminders: ReminderRuleDto[] = [],
): Promise<{ providers: number; appointmentTypes: number; timeOff: number; appointments: Record<string, number>; schedulers: number }> {
  const none = { providers: 0, appointmentTypes: 0, timeOff: 0, appointments: {}, schedulers: 0 };
  if (!patientIds.length || (await services.schedulers.findBySlug(auth, DEMO_SCHEDULER_SLUG))) return none;

  const providers = [];
  for (const dto of DEMO_PROVIDERS) providers.push(await services.providers.create(auth, dto));
  const types = [];
  for (const dto of DEMO_APPOINTMENT_TYPES) types.push(await services.types.create(auth, { ...dto, reminders }));

  // Time off from three weeks on, so that it never hides the seeded appointments: a week's holiday and a training day.
  const start = Math.floor(clock.nowMs() / DAY) * DAY + DAY;
  await services.providers.addTimeOff(auth, providers[0].id, {
    start: new Date(start + 21 * DAY).toISOString(),
    end: new Date(start + 28 * DAY).toISOString(),
    reason: 'Annual leave',
  });
  await services.providers.addTimeOff(auth, providers[1].id, {
    start: new Date(start + 22 * DAY).toISOString(),
    end: new Date(start + 23 * DAY).toISOString(),
    reason: 'Training day',
  });

  // Two appointments in each status, on free slots of the next two weeks, alternating between providers
  // and between the two types (each slot found under its type's policies, so the bookings keep them).
  const counts: Record<string, number> = {};
  let n = 0;
  for (const [p, provider] of providers.entries()) {
    for (const [s, status] of APPOINTMENT_STATUSES.entries()) {
      const type = types[s % 2];
      const query = {
        providerId: provider.id,
        appointmentTypeId: type.id,
        startDate: dateOf(start),
        endDate: dateOf(start + 13 * DAY),
      } as AvailabilityQueryDto;
      const slots = (await services.availability.availability(auth, query)).slots.filter(clearOfExamples);
      const slot = slots[(s * 11 + p * 5) % slots.length];
      const booked = await services.appointments.book(auth, {
        patientId: patientIds[n++ % patientIds.length],
        providerId: provider.id,
        datetime: slot.start,
        appointmentTypeId: type.id,
        notes: status === 'cancelled' ? 'Cancelled by the patient by phone.' : undefined,
      });
      // Each status by an allowed transition from scheduled (completing records an encounter).
      if (status !== 'scheduled') await services.appointments.update(auth, booked.id, { status });
      counts[status] = (counts[status] ?? 0) + 1;
    }
  }

  await services.schedulers.create(auth, {
    name: 'New patient consultation',
    slug: DEMO_SCHEDULER_SLUG,
    description: 'A one-hour first visit with one of our doctors, in New York or London, booked four hours ahead at least.',
    providerIds: providers.map((p) => p.id),
    appointmentTypeId: types[0].id,
    isActive: true,
  });
  return { providers: providers.length, appointmentTypes: types.length, timeOff: 2, appointments: counts, schedulers: 1 };
}
