import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { client, type Problem } from './app';
import type { ProviderDto } from '../../src/modules/scheduling/providers/dto/provider.dto';
import type { AppointmentDto } from '../../src/modules/scheduling/appointments/dto/appointment.dto';
import type { SchedulerDto } from '../../src/modules/booking-pages/dto/scheduler.dto';
import type { SlotDto } from '../../src/modules/scheduling/availability/dto/availability.dto';

export const SCHEDULING = '/api/v1/scheduling';

/** Monday to Friday, the same hours each day. */
export const weekdays = (start = '09:00', end = '17:00'): { weekday: number; start: string; end: string }[] =>
  [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start, end }));

/** Every day of the week, the same hours. */
export const everyDay = (start = '00:00', end = '24:00'): { weekday: number; start: string; end: string }[] =>
  [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start, end }));

let counter = 0;

/** Creates a provider through the API and answers its body; fails the test on anything but 201. */
export async function createProvider(app: NestFastifyApplication, key: string, body: Record<string, unknown> = {}): Promise<ProviderDto> {
  const res = await client(app, key).post<ProviderDto>(`${SCHEDULING}/providers`, {
    name: `Dr. Provider ${++counter}`,
    timezone: 'America/New_York',
    workingHours: weekdays(),
    ...body,
  });
  if (res.status !== 201) throw new Error(`provider creation failed: ${res.status} ${res.text}`);
  return res.body;
}

/** A 409 slot_unavailable: the problem with the next free slots of the asked duration (public pages name no provider). */
export type SlotUnavailable<Slot = SlotDto> = Problem & { alternatives: Slot[] };

/** The field names of a problem's errors[]. */

export const fieldsOf = (body: { errors?: { field: string }[] }): string[] => (body.errors ?? []).map((e) => e.field);

export const SCHEDULERS = '/api/v1/schedulers';

/** Creates a scheduler through the API over these providers and answers its body; fails the test on anything but 201. */
export async function createScheduler(
  app: NestFastifyApplication,
  key: string,
  providerIds: string[],
  body: Record<string, unknown> = {},
): Promise<SchedulerDto> {
  const res = await client(app, key).post<SchedulerDto>(SCHEDULERS, {
    name: `Booking page ${++counter}`,
    providerIds,
    duration: 30,
    ...body,
  });
  if (res.status !== 201) throw new Error(`scheduler creation failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Books an appointment through the API (POST /scheduling/book) and answers its body; fails the test on anything but 201. */
export async function bookAppointment(
  app: NestFastifyApplication,
  key: string,
  body: { patientId: string; providerId: string; datetime: string } & Record<string, unknown>,
): Promise<AppointmentDto> {
  const res = await client(app, key).post<AppointmentDto>(`${SCHEDULING}/book`, body);
  if (res.status !== 201) throw new Error(`booking failed: ${res.status} ${res.text}`);
  return res.body;
}
