import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../common/auth/auth.types';
import { PageRequest } from '../../common/http/pagination';
import { FieldError, ValidationFailedException } from '../../common/http/problem';
import { clock } from '../../common/time/clock';
import { retryOnDeadlock, violates } from '../../database/database-errors';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { EventsService } from '../events';
import { ClinicalService, noSuchPatient, PatientDto, patientFor, PatientsService } from '../patients';
import type { EncounterReferences } from '../patients';
import { AppointmentsRepository, SchedulingConstraint } from './appointments.repository';
import { AvailabilityService, DEFAULT_DURATION, Unbookable } from './availability.service';
import {
  AppointmentDto,
  AppointmentListDto,
  BookAppointmentDto,
  ListAppointmentsQueryDto,
  UpdateAppointmentDto,
} from './dto/appointment.dto';
import { AppointmentEntity } from './entities/appointment.entity';
import { ProviderEntity } from './entities/provider.entity';
import { definedOnly } from './defined-only';
import { ProvidersRepository } from './providers.repository';
import { AppointmentNotFoundException, InvalidTransitionException, SlotUnavailableException } from './scheduling.exceptions';
import { canTransition, isActive } from './transitions';

const MINUTE = 60_000;

const REASONS: Record<Unbookable | 'overlap', string> = {
  in_the_past: 'The requested time is in the past',
  outside_working_hours: "The requested time is outside the provider's working hours",
  time_off: 'The provider is off at the requested time',
  provider_inactive: 'The provider is not taking appointments',
  overlap: 'The provider has another appointment at the requested time',
};

/** The time and kind of a booking (the provider and the patient are passed beside it). */
export interface BookingRequest {
  start: number;
  duration: number;
  type: string | null;
  notes: string | null;
}

/** What runs inside a booking's transaction besides the insert and its event. */
export interface BookingSteps {
  /** The appointment's patient (a public booking finds or creates its lead here). */
  patientOf: (tx: EntityManager) => Promise<PatientDto>;
  /** After the insert (a public booking counts itself here). */
  afterInsert?: (appointment: AppointmentDto, tx: EntityManager) => Promise<void>;
}

@Injectable()
export class AppointmentsService {
  constructor(
    private readonly appointments: AppointmentsRepository,
    private readonly providers: ProvidersRepository,
    private readonly availability: AvailabilityService,
    private readonly patients: PatientsService,
    private readonly clinical: ClinicalService,
    private readonly transactions: Transactions,
    private readonly events: EventsService,
  ) {}

  /** POST /scheduling/book. Ids in the body that name nothing in the caller's tenant and mode are 400s. */
  async book(auth: AuthContext, dto: BookAppointmentDto): Promise<AppointmentDto> {
    const [patient, provider] = await Promise.all([this.patients.find(auth, dto.patientId), this.providers.findById(auth, dto.providerId)]);
    const errors: FieldError[] = [];
    if (!patient) errors.push(noSuchPatient('patientId'));
    if (!provider) errors.push({ field: 'providerId', message: 'names no provider of this tenant and mode' });
    if (errors.length) throw new ValidationFailedException(errors);
    const request: BookingRequest = {
      start: Date.parse(dto.datetime),
      duration: dto.duration ?? DEFAULT_DURATION,
      type: dto.type?.trim() || null,
      notes: dto.notes ?? null,
    };
    return appointmentFor(auth, await this.insert(auth, provider!, request, { patientOf: () => Promise.resolve(patient!) }));
  }

  /**
   * Books a checked request: refused unless inside working hours, outside time off and in the future; the
   * exclusion constraint refuses an overlap with another active appointment, race-free (two concurrent
   * bookings of one slot: one INSERT commits, the other fails with 23P01). Both refusals are 409
   * slot_unavailable with the next free slots. The patient is resolved inside the booking's transaction
   * (a public booking finds or creates its lead there), `appointment.booked` is recorded in it, and
   * `afterInsert` runs in it too (a public booking counts itself there).
   */
  async insert(scope: TenantScope, provider: ProviderEntity, request: BookingRequest, steps: BookingSteps): Promise<AppointmentDto> {
    const refused = await this.availability.unbookable(scope, provider, request.start, request.duration);
    if (refused) throw await this.unavailable(scope, provider, request.start, request.duration, refused);
    // Bookings and reschedules take turns per provider (lockProviderSchedule), so racing ones meet the
    // winner's committed row (a plain 23P01); a deadlock with some other writer is still retried.
    try {
      return await retryOnDeadlock(() => this.bookIn(scope, provider, request, steps));
    } catch (err) {
      if (violates(err, SchedulingConstraint.ProviderActiveTime)) {
        throw await this.unavailable(scope, provider, request.start, request.duration, 'overlap');
      }
      throw err;
    }
  }

  /** The booking's transaction: the patient, the appointment, its event and `afterInsert`. */
  private bookIn(scope: TenantScope, provider: ProviderEntity, request: BookingRequest, steps: BookingSteps): Promise<AppointmentDto> {
    return this.transactions.run(async (tx) => {
      await this.appointments.lockProviderSchedule(scope, provider.id, tx);
      const patient = await steps.patientOf(tx);
      const row = await this.appointments.insert(
        scope,
        {
          patientId: patient.id,
          providerId: provider.id,
          startsAt: new Date(request.start),
          endsAt: new Date(request.start + request.duration * MINUTE),
          duration: request.duration,
          status: 'scheduled',
          type: request.type,
          notes: request.notes,
        },
        tx,
      );
      const appointment = appointmentDto(row, patient);
      await this.events.record(scope, 'appointment.booked', appointment, tx);
      await steps.afterInsert?.(appointment, tx);
      return appointment;
    });
  }

  async list(auth: AuthContext, query: ListAppointmentsQueryDto, page: PageRequest): Promise<AppointmentListDto> {
    const startsFrom = query.startDate ? new Date(query.startDate) : undefined;
    const startsBefore = query.endDate ? new Date(query.endDate) : undefined;
    if (startsFrom && startsBefore && startsBefore <= startsFrom) {
      throw new ValidationFailedException([{ field: 'endDate', message: 'must be after startDate' }]);
    }
    const filters = { status: query.status, providerId: query.providerId, patientId: query.patientId, startsFrom, startsBefore };
    const result = await this.appointments.list(auth, filters, page);
    // One query for the page's patients, not one per row; a patient deleted meanwhile takes its appointments along.
    const patients = await this.patients.findMany(
      auth,
      result.items.map((a) => a.patientId),
    );
    const appointments = result.items
      .filter((a) => patients.has(a.patientId))
      .map((a) => appointmentFor(auth, appointmentDto(a, patients.get(a.patientId)!)));
    return { appointments, nextCursor: result.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<AppointmentDto> {
    const row = await this.appointments.findById(auth, id);
    const patient = row && (await this.patients.find(auth, row.patientId));
    if (!row || !patient) throw new AppointmentNotFoundException();
    return appointmentFor(auth, appointmentDto(row, patient));
  }

  /**
   * What is wrong with the provider and appointment an encounter of this patient names: each must be of
   * the caller's tenant and mode, the appointment the patient's own, and a provider sent with an
   * appointment that appointment's provider.
   */
  async encounterReferenceProblems(
    auth: AuthContext,
    patientId: string,
    references: EncounterReferences,
    tx: EntityManager,
  ): Promise<FieldError[]> {
    const problems: FieldError[] = [];
    const appointment = references.appointmentId ? await this.appointments.findById(auth, references.appointmentId, tx) : null;
    if (references.appointmentId && appointment?.patientId !== patientId) {
      problems.push({ field: 'appointmentId', message: 'names no appointment of this patient in this tenant and mode' });
    }
    if (references.providerId) {
      const provider = await this.providers.findById(auth, references.providerId, tx);
      if (!provider) problems.push({ field: 'providerId', message: 'names no provider of this tenant and mode' });
      else if (appointment && appointment.patientId === patientId && appointment.providerId !== provider.id) {
        problems.push({ field: 'providerId', message: "is not the appointment's provider" });
      }
    }
    return problems;
  }

  /** The appointment with its provider, for the iCalendar export. */
  async getWithProvider(auth: AuthContext, id: string): Promise<{ appointment: AppointmentDto; provider: ProviderEntity }> {
    const appointment = await this.get(auth, id);
    const provider = await this.providers.findById(auth, appointment.providerId);
    return { appointment, provider: provider! };
  }

  /**
   * PATCH: status per the transition table, a reschedule (only while scheduled or confirmed; checked like a
   * booking, and by the same constraint), notes and type. The row is locked for the change, and completing
   * records an encounter in the patient's clinical data in the same transaction. A PATCH that changes
   * anything records `appointment.updated` (the appointment after it) in that transaction too.
   */
  async update(auth: AuthContext, id: string, dto: UpdateAppointmentDto): Promise<AppointmentDto> {
    let rescheduled: { provider: ProviderEntity; start: number; duration: number } | undefined;
    // As for bookings: the provider's turn settles races, a deadlock with anything else is retried.
    try {
      return await retryOnDeadlock(() =>
        this.transactions.run(async (tx) => {
          const current = await this.appointments.findByIdLocked(auth, id, tx);
          if (!current) throw new AppointmentNotFoundException();
          // After the row's lock, as every update takes them: the same order everywhere, so no deadlock.
          await this.appointments.lockProviderSchedule(auth, current.providerId, tx);
          const status = dto.status ?? current.status;
          if (!canTransition(current.status, status)) throw new InvalidTransitionException(current.status, status);

          const start = dto.datetime !== undefined ? Date.parse(dto.datetime) : current.startsAt.getTime();
          const duration = dto.duration ?? current.duration;
          const moves = start !== current.startsAt.getTime() || duration !== current.duration;
          if (moves) {
            if (!isActive(current.status) || !isActive(status)) throw new InvalidTransitionException(current.status, 'rescheduled');
            const provider = (await this.providers.findById(auth, current.providerId, tx))!;
            rescheduled = { provider, start, duration };
            const refused = await this.availability.unbookable(auth, provider, start, duration, tx);
            if (refused) throw await this.unavailable(auth, provider, start, duration, refused);
          }

          await this.appointments.update(
            auth,
            { id },
            definedOnly({
              status,
              startsAt: new Date(start),
              endsAt: new Date(start + duration * MINUTE),
              duration,
              type: dto.type === undefined ? undefined : dto.type?.trim() || null,
              notes: dto.notes,
              updatedAt: clock.now(),
            }),
            tx,
          );
          if (status === 'completed' && current.status !== 'completed') {
            const values = {
              patientId: current.patientId,
              appointmentId: current.id,
              providerId: current.providerId,
              datetime: new Date(start),
              type: dto.type === undefined ? current.type : dto.type,
              notes: dto.notes === undefined ? current.notes : dto.notes,
            };
            await this.clinical.recordAppointmentEncounter(auth, values, tx);
          }
          const updated = await this.appointments.findById(auth, id, tx);
          const appointment = appointmentDto(updated!, (await this.patients.find(auth, updated!.patientId, tx))!);
          if (changes(current, updated!)) await this.events.record(auth, 'appointment.updated', appointment, tx);
          return appointmentFor(auth, appointment);
        }),
      );
    } catch (err) {
      if (rescheduled && violates(err, SchedulingConstraint.ProviderActiveTime)) {
        throw await this.unavailable(auth, rescheduled.provider, rescheduled.start, rescheduled.duration, 'overlap');
      }
      throw err;
    }
  }

  private async unavailable(
    scope: TenantScope,
    provider: ProviderEntity,
    start: number,
    duration: number,
    reason: Unbookable | 'overlap',
  ): Promise<SlotUnavailableException> {
    return new SlotUnavailableException(REASONS[reason], await this.availability.alternatives(scope, provider, start, duration));
  }
}

/** Whether a PATCH changed anything a client sees (updatedAt aside). */
function changes(before: AppointmentEntity, after: AppointmentEntity): boolean {
  return (
    before.status !== after.status ||
    before.startsAt.getTime() !== after.startsAt.getTime() ||
    before.duration !== after.duration ||
    before.type !== after.type ||
    before.notes !== after.notes
  );
}

/** The appointment as `auth` may see it: its patient whole with patients:read, else the patient's summary. */
function appointmentFor(auth: AuthContext, appointment: AppointmentDto): AppointmentDto {
  return { ...appointment, patient: patientFor(auth, appointment.patient) };
}

export function appointmentDto(row: AppointmentEntity, patient: PatientDto): AppointmentDto {
  return {
    id: row.id,
    patientId: row.patientId,
    providerId: row.providerId,
    datetime: row.startsAt.toISOString(),
    duration: row.duration,
    end: row.endsAt.toISOString(),
    status: row.status,
    type: row.type,
    notes: row.notes,
    patient,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
