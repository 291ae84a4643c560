import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../../common/auth/auth.types';
import { patientFor } from '../../../common/auth/patient-visibility';
import { PageRequest } from '../../../common/http/lists/pagination';
import { FieldError, ValidationFailedException } from '../../../common/http/errors/problem';
import { BusinessClock } from '../../../common/time/business-clock';
import { clock } from '../../../common/time/clock';
import { retryOnDeadlock, violates } from '../../../database/database-errors';
import { ReadReplicas } from '../../../database/read-replicas';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { Transactions } from '../../../database/transactions';
import { EventsService } from '../../events';
import type { EventType } from '../../events';
import { ClinicalService, noSuchPatient, PatientDto, PatientsService } from '../../patients';
import { BookingPolicy, changeDeadline, durationPolicy, overridden, typePolicy } from './appointment-policies';
import { AppointmentTypesService } from '../appointment-types/appointment-types.service';
import { AppointmentsRepository, SchedulingConstraint } from './appointments.repository';
import { AvailabilityService, DEFAULT_DURATION, offering, Unbookable } from '../availability/availability.service';
import {
  AppointmentDto,
  AppointmentListDto,
  AppointmentReminderDto,
  BookAppointmentDto,
  ListAppointmentsQueryDto,
  UpdateAppointmentDto,
} from './dto/appointment.dto';
import { AppointmentTypeEntity, NoticeEvent } from '../appointment-types/entities/appointment-type.entity';
import { BookingNotices } from '../notices/booking-notices.service';
import { TimeFreed } from '../waitlist/time-freed';
import { AppointmentEntity } from './entities/appointment.entity';
import { ProviderEntity } from '../providers/entities/provider.entity';
import { definedOnly } from '../defined-only';
import { ManageTokens, newManageId } from '../self-service/manage-tokens';
import { ProvidersRepository } from '../providers/providers.repository';
import { HoldsRepository } from '../holds/holds.repository';
import { ReminderCancelReason, RemindersService } from '../reminders/reminders.service';
import {
  AppointmentNotFoundException,
  ChangeWindowClosedException,
  InvalidTransitionException,
  SlotUnavailableException,
} from '../scheduling.exceptions';
import { AppointmentStatus, canTransition, isActive } from './transitions';

const MINUTE = 60_000;

const REASONS: Record<Unbookable, string> = {
  in_the_past: 'The requested time is in the past',
  outside_working_hours: "The requested time is outside the provider's working hours",
  off_grid:
    "The requested time is not on the appointment type's slot grid (every slotIntervalMinutes from the start of the provider's working hours)",
  time_off: 'The provider is off at the requested time',
  provider_inactive: 'The provider is not taking appointments',
  overlap: 'The provider has another appointment or a hold at the requested time',
  too_soon: "The requested time is sooner than the appointment type's minimum notice",
  beyond_horizon: "The requested time is further ahead than the appointment type's booking horizon",
  buffer: 'The requested time leaves too little time around another appointment of the provider (buffers)',
  daily_cap: "The provider has reached the appointment type's daily limit on that day",
};

/** Who made a change: a key, a patient's manage link or an SMS reply. Carried by the change's event. */
export type ChangeSource = 'api' | 'patient_link' | 'sms';

/** The time and kind of a booking (the provider and the patient are passed beside it). */
export interface BookingRequest {
  start: number;
  /** The rules of its type (or of a bare duration); alternatives always keep them. */
  policy: BookingPolicy;
  /** Book off the slot grid and outside notice, horizon, buffers and cap (never onto an overlap). */
  overridePolicies?: boolean;
  type: string | null;
  notes: string | null;
  /** Tell the patient (a booking notice, by the type's channels): always for a booking page, on request for a key. */
  notifyPatient?: boolean;
  /** The recurring series the booking is an occurrence of. */
  seriesId?: string;
}

/** The provider and appointment an encounter names (either may be absent): ids lower-cased. */
export interface EncounterReferences {
  providerId: string | null;
  appointmentId: string | null;
}

/** A change of an appointment: status, time, length, notes, type (the members of PATCH). */
export interface AppointmentChange {
  status?: AppointmentStatus;
  datetime?: string;
  duration?: number;
  type?: string | null;
  notes?: string | null;
  overridePolicies?: boolean;
  /** Tell the patient of a move or cancellation (a key's choice; a patient's link always does). */
  notifyPatient?: boolean;
  /** Another provider of the tenant (a series moves its occurrences so); checked like a move. */
  providerId?: string;
}

/** Thrown inside a booking's transaction when a rule refuses it; answered after the rollback, with alternatives. */
class Refused extends Error {
  constructor(
    readonly reason: Unbookable,
    /** A change's new time, around which its 409 offers alternatives. */
    readonly move?: Move,
  ) {
    super(reason);
  }
}

/** The slot a change moves an appointment to. */
interface Move {
  provider: ProviderEntity;
  start: number;
  policy: BookingPolicy;
  exceptId: string;
}

/** Why a booking's transaction failed, if a rule or an overlap constraint refused it. */
function refusalOf(err: unknown): Unbookable | undefined {
  if (err instanceof Refused) return err.reason;
  return overlapped(err) ? 'overlap' : undefined;
}

/** The database refused an overlap: with another appointment, or with any appointment's or hold's time (the claims). */
function overlapped(err: unknown): boolean {
  return violates(err, SchedulingConstraint.ProviderActiveTime) || violates(err, SchedulingConstraint.ProviderTimeClaims);
}

const STATUS_EVENTS: Partial<Record<AppointmentStatus, EventType>> = {
  confirmed: 'appointment.confirmed',
  cancelled: 'appointment.cancelled',
  no_show: 'appointment.no_show',
};

/** The statuses that end an appointment, and why its planned reminders are cancelled then. */
const CANCELLING_STATUSES: Partial<Record<AppointmentStatus, ReminderCancelReason>> = {
  cancelled: 'appointment_cancelled',
  no_show: 'appointment_no_show',
  completed: 'appointment_completed',
};

@Injectable()
export class AppointmentsService {
  constructor(
    private readonly appointments: AppointmentsRepository,
    private readonly providers: ProvidersRepository,
    private readonly types: AppointmentTypesService,
    private readonly availability: AvailabilityService,
    private readonly patients: PatientsService,
    private readonly clinical: ClinicalService,
    private readonly transactions: Transactions,
    private readonly events: EventsService,
    private readonly tokens: ManageTokens,
    private readonly reminders: RemindersService,
    private readonly clock: BusinessClock,
    private readonly notices: BookingNotices,
    private readonly holds: HoldsRepository,
    private readonly freed: TimeFreed,
    private readonly replicas: ReadReplicas,
  ) {}

  /** POST /scheduling/book. Ids in the body that name nothing in the caller's tenant and mode are 400s. */
  async book(auth: AuthContext, dto: BookAppointmentDto): Promise<AppointmentDto> {
    const { patient, provider, type, errors } = await this.bookingReferences(auth, dto);
    if (errors.length) throw new ValidationFailedException(errors);
    const request: BookingRequest = {
      start: Date.parse(dto.datetime),
      policy: type ? typePolicy(type) : durationPolicy(dto.duration ?? DEFAULT_DURATION),
      overridePolicies: dto.overridePolicies ?? false,
      type: type ? type.name : dto.type?.trim() || null,
      notes: dto.notes ?? null,
      notifyPatient: dto.notifyPatient ?? false,
    };
    try {
      const appointment = await retryOnDeadlock(() =>
        this.transactions.run(async (tx) => {
          await this.claimSlot(auth, provider!, request, tx);
          return this.recordBooking(auth, provider!, request, patient!, tx);
        }),
      );
      return appointmentFor(auth, appointment);
    } catch (err) {
      throw (await this.slotUnavailable(auth, err, { provider: provider!, start: request.start, policy: request.policy })) ?? err;
    }
  }

  /**
   * A booking's or hold's failed transaction as its 409 slot_unavailable, with the provider's alternatives
   * around the asked slot, when a rule or an overlap constraint refused it; undefined for any other failure.
   */
  async slotUnavailable(
    scope: TenantScope,
    err: unknown,
    slot: { provider: ProviderEntity; start: number; policy: BookingPolicy },
  ): Promise<SlotUnavailableException | undefined> {
    const reason = refusalOf(err);
    return reason ? this.unavailable(scope, slot, reason) : undefined;
  }

  /**
   * The patient, provider and type a booking names, and what is wrong with them (the fields of its 400): each
   * must be of the caller's tenant and mode, the type active and offered by the provider, and a duration sent
   * beside a type the type's.
   */
  async bookingReferences(
    auth: AuthContext,
    dto: { patientId: string; providerId: string; appointmentTypeId?: string; duration?: number },
  ): Promise<{ patient: PatientDto | null; provider: ProviderEntity | null; type?: AppointmentTypeEntity | null; errors: FieldError[] }> {
    const [patient, provider, type] = await Promise.all([
      this.patients.find(auth, dto.patientId),
      this.providers.findById(auth, dto.providerId),
      dto.appointmentTypeId ? this.types.find(auth, dto.appointmentTypeId) : undefined,
    ]);
    const errors: FieldError[] = [];
    if (!patient) errors.push(noSuchPatient('patientId'));
    if (!provider) errors.push({ field: 'providerId', message: 'names no provider of this tenant and mode' });
    if (type === null || type?.isActive === false) {
      errors.push({ field: 'appointmentTypeId', message: 'names no active appointment type of this tenant and mode' });
    } else if (type) {
      if (dto.duration !== undefined && dto.duration !== type.durationMinutes) {
        errors.push({ field: 'duration', message: `must be the appointment type's durationMinutes (${type.durationMinutes}) or omitted` });
      }
      if (provider && !offering(type, [provider]).length)
        errors.push({ field: 'providerId', message: 'does not offer this appointment type' });
    }
    return { patient, provider, type, errors };
  }

  /**
   * The first step of a booking, inside the caller's transaction (which then resolves the patient and calls
   * recordBooking): takes the provider's turn, so that every committed booking is seen, and refuses the
   * request unless inside working hours, outside time off, in the future and within the policy (a type's
   * slot grid, notice, horizon, buffers, daily cap; overridePolicies lifts those five). A refusal, here or by
   * the exclusion constraint at the insert (an overlap, race-free), fails the transaction: after its
   * rollback, refusedBecause names it and the caller answers 409 slot_unavailable with its alternatives.
   * Deadlocks are the caller's to retry (retryOnDeadlock around the whole transaction).
   */
  async claimSlot(scope: TenantScope, provider: ProviderEntity, request: BookingRequest, tx: EntityManager): Promise<void> {
    await this.takeTurn(scope, provider.id, tx);
    const policy = request.overridePolicies ? overridden(request.policy) : request.policy;
    const refused = await this.availability.unbookable(scope, provider, request.start, policy, { tx });
    if (refused) throw new Refused(refused);
  }

  /**
   * The provider's turn at its schedule (see lockProviderSchedule), and its holds whose time has come
   * expired in this transaction: their claims would refuse the time they no longer hold until their jobs run.
   */
  async takeTurn(scope: TenantScope, providerId: string, tx: EntityManager): Promise<void> {
    await this.appointments.lockProviderSchedule(scope, providerId, tx);
    await this.holds.expireLapsed(scope, providerId, await this.clock.now(scope, tx), tx);
  }

  /**
   * The second step of a booking (after claimSlot, in its transaction): the appointment, its reminders,
   * `appointment.booked`, and the patient's notice when the request asks for one.
   */
  async recordBooking(
    scope: TenantScope,
    provider: ProviderEntity,
    request: BookingRequest,
    patient: PatientDto,
    tx: EntityManager,
  ): Promise<AppointmentDto> {
    const policy = request.policy;
    const row = await this.appointments.insert(
      scope,
      {
        patientId: patient.id,
        providerId: provider.id,
        startsAt: new Date(request.start),
        endsAt: new Date(request.start + policy.duration * MINUTE),
        duration: policy.duration,
        status: 'scheduled',
        type: request.type,
        notes: request.notes,
        appointmentTypeId: policy.typeId,
        confirmedAt: null,
        cancelledAt: null,
        manageId: newManageId(),
        seriesId: request.seriesId ?? null,
      },
      tx,
    );
    const reminders = await this.reminders.plan(scope, row, policy.reminders, provider.timezone, tx);
    const appointment = this.dto(row, patient, reminders);
    await this.events.record(scope, 'appointment.booked', appointment, tx);
    if (request.notifyPatient) await this.notices.queue(scope, 'booked', appointment, null, tx);
    return appointment;
  }

  /** Which rule refused a booking or move (claimSlot's checks, a change's, or the overlap constraint), or undefined for any other failure. */
  refusalOf(err: unknown): Unbookable | undefined {
    return refusalOf(err);
  }

  /** Why a booking's transaction failed (the text of its 409 slot_unavailable), or null for any other failure. */
  refusedBecause(err: unknown): string | null {
    const reason = refusalOf(err);
    return reason ? REASONS[reason] : null;
  }

  async list(auth: AuthContext, query: ListAppointmentsQueryDto, page: PageRequest): Promise<AppointmentListDto> {
    const startsFrom = query.startDate ? new Date(query.startDate) : undefined;
    const startsBefore = query.endDate ? new Date(query.endDate) : undefined;
    if (startsFrom && startsBefore && startsBefore <= startsFrom) {
      throw new ValidationFailedException([{ field: 'endDate', message: 'must be after startDate' }]);
    }
    const filters = { status: query.status, providerId: query.providerId, patientId: query.patientId, startsFrom, startsBefore };
    // One query for the page's patients and one for their reminders, not one per row; a patient deleted
    // meanwhile takes its appointments along. All three from the one replica: a page as one server has it.
    const { result, patients, reminders } = await this.replicas.read(async (db) => {
      const result = await this.appointments.list(auth, filters, page, db);
      const [patients, reminders] = await Promise.all([
        this.patients.findMany(
          auth,
          result.items.map((a) => a.patientId),
          db,
        ),
        this.reminders.of(
          auth,
          result.items.map((a) => a.id),
          db,
        ),
      ]);
      return { result, patients, reminders };
    });
    const appointments = result.items
      .filter((a) => patients.has(a.patientId))
      .map((a) => appointmentFor(auth, this.dto(a, patients.get(a.patientId)!, reminders.get(a.id)!)));
    return { appointments, nextCursor: result.nextCursor };
  }

  async get(scope: TenantScope, id: string): Promise<AppointmentDto> {
    const row = await this.appointments.findById(scope, id);
    const [patient, reminders] = row ? await Promise.all([this.patients.find(scope, row.patientId), this.reminders.of(scope, [id])]) : [];
    if (!row || !patient) throw new AppointmentNotFoundException();
    return this.dto(row, patient, reminders!.get(id)!);
  }

  /** GET /scheduling/appointments/{id}: the appointment as the key may see it. */
  async read(auth: AuthContext, id: string): Promise<AppointmentDto> {
    return appointmentFor(auth, await this.get(auth, id));
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

  /** The appointment with its provider and type, for the iCalendar export and the manage link. */
  async getWithProvider(
    scope: TenantScope,
    id: string,
  ): Promise<{ appointment: AppointmentDto; provider: ProviderEntity; type: AppointmentTypeEntity | null }> {
    const appointment = await this.get(scope, id);
    const [provider, type] = await Promise.all([
      this.providers.findById(scope, appointment.providerId),
      appointment.appointmentTypeId ? this.types.find(scope, appointment.appointmentTypeId) : null,
    ]);
    return { appointment, provider: provider!, type };
  }

  /** The policy an appointment is held to when it moves: its type's (at the new length), else a bare duration's. */
  async policyOf(
    scope: TenantScope,
    appointment: { appointmentTypeId: string | null },
    duration: number,
    tx?: EntityManager,
  ): Promise<BookingPolicy> {
    const type = appointment.appointmentTypeId ? await this.types.find(scope, appointment.appointmentTypeId, tx) : null;
    return type ? { ...typePolicy(type), duration } : durationPolicy(duration);
  }

  /**
   * Confirms the patient's next `scheduled` appointment that starts within `withinMs` from now (a patient's
   * "C" reply to a text): `confirm` with `source: "sms"`. Answers it, or null when there is none.
   */
  async confirmNext(scope: TenantScope, patientId: string, withinMs: number): Promise<AppointmentDto | null> {
    const now = await this.clock.nowMs(scope);
    const id = await this.appointments.nextScheduledOfPatient(scope, patientId, new Date(now), new Date(now + withinMs));
    return id ? this.confirm(scope, id, 'sms') : null;
  }

  /** PATCH /scheduling/appointments/{id}, a key's change. */
  async update(auth: AuthContext, id: string, dto: UpdateAppointmentDto): Promise<AppointmentDto> {
    return appointmentFor(auth, await this.change(auth, id, dto, 'api'));
  }

  /**
   * Confirms a scheduled appointment for another module (an SMS reply, `source: "sms"`): the same
   * transition, lock and event as a PATCH. 409 invalid_transition unless scheduled (or already confirmed).
   */
  confirm(scope: TenantScope, id: string, source: ChangeSource): Promise<AppointmentDto> {
    return this.change(scope, id, { status: 'confirmed' }, source);
  }

  /**
   * Every change of an appointment: status per the transition table, a move (only while scheduled or
   * confirmed; checked like a booking under the appointment's policy, and by the same constraint), notes and
   * type. The row is locked for the change, then the provider's schedule. A patient's link (`source:
   * "patient_link"`) may not cancel or move it after its change deadline (409 change_window_closed).
   * Completing records an encounter in the patient's clinical data in the same transaction, and a move or
   * cancellation queues the patient's notice in it (always for a patient's link, on request for a key). The
   * change's event goes in that transaction too: `appointment.confirmed`, `.cancelled`, `.no_show` for those
   * statuses, `appointment.rescheduled` for a move (each with `previous` and `source`), and
   * `appointment.updated` (the appointment) for any other change.
   */
  async change(scope: TenantScope, id: string, dto: AppointmentChange, source: ChangeSource): Promise<AppointmentDto> {
    // As for bookings: the provider's turn settles races, a deadlock with anything else is retried.
    try {
      return await retryOnDeadlock(() => this.transactions.run((tx) => this.applyChange(scope, id, dto, source, tx)));
    } catch (err) {
      if (err instanceof Refused && err.move) throw await this.unavailable(scope, err.move, err.reason);
      throw err;
    }
  }

  /**
   * `change` inside the caller's transaction, for a workflow that changes appointments as part of its own
   * (a series moving its occurrences; a waitlist offer accepted moving the patient's appointment into the
   * hold it consumes): a refusal throws (refusalOf names it) and the caller answers it after the rollback.
   */
  changeWithin(scope: TenantScope, id: string, dto: AppointmentChange, source: ChangeSource, tx: EntityManager): Promise<AppointmentDto> {
    return this.applyChange(scope, id, dto, source, tx);
  }

  /** `change` inside its transaction: lock, check, claim the new time if it moves, write, then what follows. */
  private async applyChange(
    scope: TenantScope,
    id: string,
    dto: AppointmentChange,
    source: ChangeSource,
    tx: EntityManager,
  ): Promise<AppointmentDto> {
    const current = await this.appointments.findByIdLocked(scope, id, tx);
    if (!current) throw new AppointmentNotFoundException();
    // After the row's lock, as every update takes them: the same order everywhere, so no deadlock.
    await this.takeTurn(scope, current.providerId, tx);
    if (dto.providerId && dto.providerId !== current.providerId) await this.takeTurn(scope, dto.providerId, tx);
    const next = await this.checkChange(scope, current, dto, source, tx);
    const move = next.moves ? await this.claimMove(scope, current, next, dto.overridePolicies ?? false, tx) : undefined;
    const now = clock.now();
    const values = definedOnly({
      status: next.status,
      providerId: next.providerId !== current.providerId ? next.providerId : undefined,
      startsAt: new Date(next.start),
      endsAt: new Date(next.start + next.duration * MINUTE),
      duration: next.duration,
      type: dto.type === undefined ? undefined : dto.type?.trim() || null,
      notes: dto.notes,
      confirmedAt: next.status === 'confirmed' && current.status !== 'confirmed' ? now : undefined,
      cancelledAt: next.status === 'cancelled' && current.status !== 'cancelled' ? now : undefined,
      updatedAt: now,
    });
    try {
      await this.appointments.update(scope, { id }, values, tx);
    } catch (err) {
      // The exclusion constraint refuses an overlap the checks could not see: answered like theirs.
      if (move && overlapped(err)) throw new Refused('overlap', move);
      throw err;
    }
    const updated = (await this.appointments.findById(scope, id, tx))!;
    // Time given up (cancelled, ended or moved away) may go to the waitlist.
    if (isActive(current.status) && (!isActive(updated.status) || next.moves)) {
      await this.freed.record(scope, { providerId: current.providerId, from: current.startsAt, to: current.endsAt }, tx);
    }
    if (updated.status === 'completed' && current.status !== 'completed') {
      const { patientId, id: appointmentId, providerId, startsAt: datetime, type, notes } = updated;
      await this.clinical.recordAppointmentEncounter(scope, { patientId, appointmentId, providerId, datetime, type, notes }, tx);
    }
    await this.replanReminders(scope, current, updated, move?.provider, tx);
    const [patient, reminders] = await Promise.all([this.patients.find(scope, updated.patientId, tx), this.reminders.of(scope, [id], tx)]);
    const appointment = this.dto(updated, patient!, reminders.get(id)!);
    await this.recordChange(tx, scope, current, updated, appointment, source);
    const notice = noticeOf(current, updated);
    if (notice && (source === 'patient_link' || dto.notifyPatient)) {
      await this.notices.queue(scope, notice, appointment, notice === 'rescheduled' ? current.startsAt : null, tx);
    }
    return appointment;
  }

  /**
   * The status, start and length a change asks for, once the transition table, the rule that only an active
   * appointment moves, and a patient link's change window allow them.
   */
  private async checkChange(
    scope: TenantScope,
    current: AppointmentEntity,
    dto: AppointmentChange,
    source: ChangeSource,
    tx: EntityManager,
  ): Promise<{ status: AppointmentStatus; start: number; duration: number; providerId: string; moves: boolean }> {
    const status = dto.status ?? current.status;
    if (!canTransition(current.status, status)) throw new InvalidTransitionException(current.status, status);
    // A patient's link changes nothing once the appointment is final, not even to the same status.
    if (source === 'patient_link' && !isActive(current.status)) throw new InvalidTransitionException(current.status, status);
    const start = dto.datetime !== undefined ? Date.parse(dto.datetime) : current.startsAt.getTime();
    const duration = dto.duration ?? current.duration;
    const providerId = dto.providerId ?? current.providerId;
    const moves = start !== current.startsAt.getTime() || duration !== current.duration || providerId !== current.providerId;
    if (moves && (!isActive(current.status) || !isActive(status))) throw new InvalidTransitionException(current.status, 'rescheduled');
    if (source === 'patient_link' && (moves || (status === 'cancelled' && current.status !== 'cancelled'))) {
      await this.checkChangeWindow(scope, current, tx);
    }
    return { status, start, duration, providerId, moves };
  }

  /** A move's new time, checked like a booking under the appointment's policy (this appointment aside). */
  private async claimMove(
    scope: TenantScope,
    current: AppointmentEntity,
    next: { start: number; duration: number; providerId: string },
    overridePolicies: boolean,
    tx: EntityManager,
  ): Promise<Move> {
    const provider = (await this.providers.findById(scope, next.providerId, tx))!;
    const policy = await this.policyOf(scope, current, next.duration, tx);
    const move: Move = { provider, start: next.start, policy, exceptId: current.id };
    const held = overridePolicies ? overridden(policy) : policy;
    const refused = await this.availability.unbookable(scope, provider, next.start, held, { exceptId: current.id, tx });
    if (refused) throw new Refused(refused, move);
    return move;
  }

  /**
   * A change's effect on the reminders still to go: an appointment that ends (cancelled, no-show,
   * completed) cancels them; a new start cancels them and plans the type's reminders for the new time.
   */
  private async replanReminders(
    scope: TenantScope,
    before: AppointmentEntity,
    after: AppointmentEntity,
    provider: ProviderEntity | undefined,
    tx: EntityManager,
  ): Promise<void> {
    const ended = CANCELLING_STATUSES[after.status];
    if (ended && before.status !== after.status) return this.reminders.cancel(scope, after.id, ended, tx);
    if ((before.startsAt.getTime() === after.startsAt.getTime() && before.providerId === after.providerId) || !isActive(after.status))
      return;
    await this.reminders.cancel(scope, after.id, 'rescheduled', tx);
    const type = after.appointmentTypeId ? await this.types.find(scope, after.appointmentTypeId, tx) : null;
    if (!type?.reminders.length) return;
    const zone = (provider ?? (await this.providers.findById(scope, after.providerId, tx))!).timezone;
    await this.reminders.plan(scope, after, type.reminders, zone, tx);
  }

  /** 409 change_window_closed once the clock has passed the appointment's change deadline. */
  private async checkChangeWindow(scope: TenantScope, current: AppointmentEntity, tx: EntityManager): Promise<void> {
    const type = current.appointmentTypeId ? await this.types.find(scope, current.appointmentTypeId, tx) : null;
    const deadline = changeDeadline(current.startsAt.getTime(), type?.cancellationWindowMinutes ?? null);
    if ((await this.clock.nowMs(scope, tx)) > deadline) throw new ChangeWindowClosedException(new Date(deadline).toISOString());
  }

  /** The event of a change, if anything a client sees changed (see `change`). */
  private async recordChange(
    tx: EntityManager,
    scope: TenantScope,
    before: AppointmentEntity,
    after: AppointmentEntity,
    appointment: AppointmentDto,
    source: ChangeSource,
  ): Promise<void> {
    const previous = changedMembers(before, after);
    if (!Object.keys(previous).length) return;
    const statusEvent = after.status !== before.status ? STATUS_EVENTS[after.status] : undefined;
    const moved = 'datetime' in previous || 'duration' in previous || 'providerId' in previous;
    if (statusEvent) await this.events.record(scope, statusEvent, { appointment, previous, source }, tx);
    if (moved) await this.events.record(scope, 'appointment.rescheduled', { appointment, previous, source }, tx);
    if (!statusEvent && !moved) await this.events.record(scope, 'appointment.updated', appointment, tx);
  }

  private async unavailable(
    scope: TenantScope,
    { provider, start, policy, exceptId }: Omit<Move, 'exceptId'> & { exceptId?: string },
    reason: Unbookable,
  ): Promise<SlotUnavailableException> {
    return new SlotUnavailableException(REASONS[reason], await this.availability.alternatives(scope, [provider], start, policy, exceptId));
  }

  /** The appointment as the API answers it, with its manage link and reminders. */
  dto(row: AppointmentEntity, patient: PatientDto, reminders: AppointmentReminderDto[]): AppointmentDto {
    return appointmentDto(row, patient, this.tokens.url(row.manageId), reminders);
  }
}

/** The notice a change calls for: a cancellation, or a move (a new start or length). */
function noticeOf(before: AppointmentEntity, after: AppointmentEntity): NoticeEvent | null {
  if (after.status === 'cancelled' && before.status !== 'cancelled') return 'cancelled';
  const moved = before.startsAt.getTime() !== after.startsAt.getTime() || before.duration !== after.duration;
  return moved ? 'rescheduled' : null;
}

/** The members a client sees that a change altered, with their values before it (updatedAt aside). */
export function changedMembers(before: AppointmentEntity, after: AppointmentEntity): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  if (before.status !== after.status) previous.status = before.status;
  if (before.providerId !== after.providerId) previous.providerId = before.providerId;
  if (before.startsAt.getTime() !== after.startsAt.getTime()) previous.datetime = before.startsAt.toISOString();
  if (before.endsAt.getTime() !== after.endsAt.getTime()) previous.end = before.endsAt.toISOString();
  if (before.duration !== after.duration) previous.duration = before.duration;
  if (before.type !== after.type) previous.type = before.type;
  if (before.notes !== after.notes) previous.notes = before.notes;
  if (before.confirmedAt?.getTime() !== after.confirmedAt?.getTime()) previous.confirmedAt = before.confirmedAt?.toISOString() ?? null;
  if (before.cancelledAt?.getTime() !== after.cancelledAt?.getTime()) previous.cancelledAt = before.cancelledAt?.toISOString() ?? null;
  return previous;
}

/** The appointment as `auth` may see it: its patient whole with patients:read, else the patient's summary. */
export function appointmentFor(auth: AuthContext, appointment: AppointmentDto): AppointmentDto {
  return { ...appointment, patient: patientFor(auth, appointment.patient) };
}

export function appointmentDto(
  row: AppointmentEntity,
  patient: PatientDto,
  manageUrl: string,
  reminders: AppointmentReminderDto[],
): AppointmentDto {
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
    appointmentTypeId: row.appointmentTypeId,
    seriesId: row.seriesId ?? null,
    confirmedAt: row.confirmedAt?.toISOString() ?? null,
    cancelledAt: row.cancelledAt?.toISOString() ?? null,
    manageUrl,
    reminders,
    patient,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
