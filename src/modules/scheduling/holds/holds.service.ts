import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../../common/auth/auth.types';
import { FieldError, ValidationFailedException } from '../../../common/http/errors/problem';
import { JobOutbox } from '../../../common/queue/job-outbox';
import { JobName } from '../../../common/queue/queues';
import { BusinessClock } from '../../../common/time/business-clock';
import { retryOnDeadlock } from '../../../database/database-errors';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { Transactions } from '../../../database/transactions';
import { noSuchPatient, PatientsService } from '../../patients';
import { BookingPolicy, durationPolicy, typePolicy } from '../appointments/appointment-policies';
import { appointmentFor, AppointmentsService, BookingRequest } from '../appointments/appointments.service';
import { AppointmentDto, BookAppointmentDto } from '../appointments/dto/appointment.dto';
import { AppointmentTypesService } from '../appointment-types/appointment-types.service';
import { offering } from '../availability/availability.service';
import { ProviderEntity } from '../providers/entities/provider.entity';
import { ProvidersRepository } from '../providers/providers.repository';
import { HoldConsumedException, HoldExpiredException, HoldNotFoundException } from '../scheduling.exceptions';
import { CreateHoldDto, HOLD_TTL, HoldDto } from './dto/hold.dto';
import { HoldEntity, HoldStatus } from './entities/hold.entity';
import { HoldsRepository } from './holds.repository';

const MINUTE = 60_000;
const SECOND = 1_000;

/** A slot to hold: checked and claimed as a booking of it would be. */
export interface HoldRequest {
  provider: ProviderEntity;
  start: number;
  policy: BookingPolicy;
  ttlSeconds: number;
  /** The booking page taking it, which alone may book it without a key. */
  schedulerId: string | null;
}

/** A hold being booked, inside the booking's transaction: the slot it keeps, as a booking of it. */
export interface HeldBooking {
  provider: ProviderEntity;
  request: BookingRequest;
}

/** What the keyed booking of a hold must leave out: the hold names them. */
const NAMED_BY_HOLD = ['appointmentTypeId', 'duration', 'type', 'overridePolicies'] as const;

/** POST /scheduling/book's body with holdId: providerId and datetime may then be left out. */
type HeldBookingBody = Omit<BookAppointmentDto, 'providerId' | 'datetime'> & { holdId: string; providerId?: string; datetime?: string };

const noSuchHold = (): FieldError => ({ field: 'holdId', message: 'names no hold of this tenant and mode' });

/**
 * Holds: a provider's time kept for a while, taken by the same checks and the same turn as a booking, and
 * refused by the same database rule (the claims' exclusion constraint, which appointments and active holds
 * meet alike). A hold expires by its job, recorded with its due time on the tenant's clock in the
 * transaction that takes it; until that job runs, availability already ignores it, and the next booking or
 * hold of its provider expires it in its own transaction (AppointmentsService.takeTurn).
 */
@Injectable()
export class HoldsService {
  constructor(
    private readonly holds: HoldsRepository,
    private readonly providers: ProvidersRepository,
    private readonly types: AppointmentTypesService,
    private readonly appointments: AppointmentsService,
    private readonly patients: PatientsService,
    private readonly transactions: Transactions,
    private readonly outbox: JobOutbox,
    private readonly clock: BusinessClock,
  ) {}

  /** POST /scheduling/holds. */
  async create(auth: AuthContext, dto: CreateHoldDto): Promise<HoldDto> {
    const [provider, type] = await Promise.all([
      this.providers.findById(auth, dto.providerId),
      dto.appointmentTypeId ? this.types.find(auth, dto.appointmentTypeId) : undefined,
    ]);
    const errors: FieldError[] = [];
    if (dto.appointmentTypeId !== undefined && dto.duration !== undefined)
      errors.push({ field: 'duration', message: 'must be omitted with appointmentTypeId (the type gives it)' });
    if (dto.appointmentTypeId === undefined && dto.duration === undefined)
      errors.push({ field: 'duration', message: 'is required unless appointmentTypeId is sent' });
    if (!provider) errors.push({ field: 'providerId', message: 'names no provider of this tenant and mode' });
    if (type === null || type?.isActive === false) {
      errors.push({ field: 'appointmentTypeId', message: 'names no active appointment type of this tenant and mode' });
    } else if (type && provider && !offering(type, [provider]).length) {
      errors.push({ field: 'providerId', message: 'does not offer this appointment type' });
    }
    if (errors.length) throw new ValidationFailedException(errors);
    const request: HoldRequest = {
      provider: provider!,
      start: Date.parse(dto.datetime),
      policy: type ? typePolicy(type) : durationPolicy(dto.duration!),
      ttlSeconds: dto.ttlSeconds ?? HOLD_TTL.default,
      schedulerId: null,
    };
    try {
      return await this.place(auth, request);
    } catch (err) {
      throw (await this.appointments.slotUnavailable(auth, err, request)) ?? err;
    }
  }

  /**
   * Takes a hold in a transaction of its own: the provider's turn and a booking's checks (claimSlot), the
   * hold (its claim written by the trigger, refused by the claims' constraint on an overlap) and its expiry
   * job. A refusal fails as a booking's does: the caller answers it (AppointmentsService.refusedBecause).
   */
  place(scope: TenantScope, request: HoldRequest): Promise<HoldDto> {
    return retryOnDeadlock(() => this.transactions.run((tx) => this.take(scope, request, tx)));
  }

  /** `place` inside the caller's transaction (a waitlist offer is made with its hold). */
  async take(scope: TenantScope, request: HoldRequest, tx: EntityManager): Promise<HoldDto> {
    const { provider, start, policy } = request;
    await this.appointments.claimSlot(scope, provider, { start, policy, type: null, notes: null }, tx);
    const now = await this.clock.nowMs(scope, tx);
    const row = await this.holds.insert(
      scope,
      {
        providerId: provider.id,
        startsAt: new Date(start),
        endsAt: new Date(start + policy.duration * MINUTE),
        duration: policy.duration,
        appointmentTypeId: policy.typeId,
        schedulerId: request.schedulerId,
        expiresAt: new Date(now + request.ttlSeconds * SECOND),
        status: 'active',
        appointmentId: null,
      },
      tx,
    );
    await this.outbox.add(
      JobName.HoldExpire,
      { holdId: row.id, expiresAt: row.expiresAt.toISOString(), tenantId: scope.tenantId, mode: scope.mode },
      { jobId: row.id, runAt: row.expiresAt, dueBy: scope },
      tx,
    );
    return holdDto(row, now);
  }

  /** Ends an active hold in the caller's transaction (`released`, or `expired` with the offer it kept), freeing its time. */
  async letGo(scope: TenantScope, id: string, status: 'released' | 'expired', tx: EntityManager): Promise<void> {
    if (await this.holds.settle(scope, id, status, tx)) await this.outbox.forget(JobName.HoldExpire, [id], tx);
  }

  /** GET /scheduling/holds/{id}: a hold past its expiry answers `expired` even before its job has run. */
  async get(scope: TenantScope, id: string): Promise<HoldDto> {
    const row = await this.holds.findById(scope, id);
    if (!row) throw new HoldNotFoundException();
    return holdDto(row, await this.clock.nowMs(scope));
  }

  /**
   * DELETE /scheduling/holds/{id}: an active hold is released and its time freed at once (its claim goes
   * with its status); a released or expired one stays as it is. A booked hold is the appointment's: 409.
   */
  async release(scope: TenantScope, id: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const row = await this.holds.findByIdLocked(scope, id, tx);
      if (!row) throw new HoldNotFoundException();
      if (row.status === 'consumed') throw new HoldConsumedException(row.appointmentId);
      if (row.status !== 'active') return;
      await this.holds.settle(scope, id, 'released', tx);
      await this.outbox.forget(JobName.HoldExpire, [id], tx);
    });
  }

  /**
   * POST /scheduling/book with holdId: the held time booked for the patient, in one transaction, the hold
   * `consumed` and naming the appointment. Ids that name nothing of the caller's tenant and mode are 400s.
   */
  async book(auth: AuthContext, dto: HeldBookingBody): Promise<AppointmentDto> {
    const errors: FieldError[] = NAMED_BY_HOLD.filter((field) => dto[field] !== undefined).map((field) => ({
      field,
      message: 'must be omitted with holdId (the hold names it)',
    }));
    const [patient, hold] = await Promise.all([this.patients.find(auth, dto.patientId), this.holds.findById(auth, dto.holdId)]);
    if (!patient) errors.push(noSuchPatient('patientId'));
    if (!hold) errors.push(noSuchHold());
    // Sent anyway (the documented slot form), they must be the hold's.
    if (hold && dto.providerId !== undefined && dto.providerId.toLowerCase() !== hold.providerId)
      errors.push({ field: 'providerId', message: "must be the hold's providerId or omitted" });
    if (hold && dto.datetime !== undefined && Date.parse(dto.datetime) !== hold.startsAt.getTime())
      errors.push({ field: 'datetime', message: "must be the hold's datetime or omitted" });
    if (errors.length) throw new ValidationFailedException(errors);
    let held: HeldBooking | undefined;
    try {
      const booked = await retryOnDeadlock(() =>
        this.transactions.run(async (tx) => {
          held = await this.consume(auth, hold!.id, { notes: dto.notes ?? null }, tx);
          const request = { ...held.request, notifyPatient: dto.notifyPatient ?? false };
          await this.appointments.claimSlot(auth, held.provider, request, tx);
          const appointment = await this.appointments.recordBooking(auth, held.provider, request, patient!, tx);
          await this.booked(auth, hold!.id, appointment.id, tx);
          return appointment;
        }),
      );
      return appointmentFor(auth, booked);
    } catch (err) {
      const refused = held && (await this.appointments.slotUnavailable(auth, err, { ...held.request, provider: held.provider }));
      throw refused ?? err;
    }
  }

  /**
   * The first step of booking a hold, inside the booking's transaction (which then calls claimSlot with the
   * request, records the booking and calls `booked`): the provider's turn, then the hold's lock, and the
   * hold `consumed` so that its time is free for the booking itself. 410 hold_expired for an expired or
   * released hold, 409 hold_consumed for a booked one; a hold of another booking page (`schedulerId`) is a
   * 400 naming holdId. The request books under the policies the hold was checked against when taken
   * (overridePolicies), so that a patient who took their time is not refused for notice or grid meanwhile.
   */
  async consume(
    scope: TenantScope,
    holdId: string,
    options: { notes: string | null; schedulerId?: string },
    tx: EntityManager,
  ): Promise<HeldBooking> {
    const seen = await this.holds.findById(scope, holdId, tx);
    if (!seen || (options.schedulerId !== undefined && seen.schedulerId !== options.schedulerId)) {
      throw new ValidationFailedException([noSuchHold()]);
    }
    await this.appointments.takeTurn(scope, seen.providerId, tx);
    const hold = (await this.holds.findByIdLocked(scope, holdId, tx))!;
    const status = statusAt(hold, await this.clock.nowMs(scope, tx));
    if (status === 'consumed') throw new HoldConsumedException(hold.appointmentId);
    if (status !== 'active') throw new HoldExpiredException(status);
    await this.holds.settle(scope, hold.id, 'consumed', tx);
    await this.outbox.forget(JobName.HoldExpire, [hold.id], tx);
    const [provider, type] = await Promise.all([
      this.providers.findById(scope, hold.providerId, tx),
      hold.appointmentTypeId ? this.types.find(scope, hold.appointmentTypeId, tx) : null,
    ]);
    const policy = type ? { ...typePolicy(type), duration: hold.duration } : durationPolicy(hold.duration);
    return {
      provider: provider!,
      request: { start: hold.startsAt.getTime(), policy, overridePolicies: true, type: type?.name ?? null, notes: options.notes },
    };
  }

  /** The last step of booking a hold: it names the appointment that consumed it. */
  async booked(scope: TenantScope, holdId: string, appointmentId: string, tx: EntityManager): Promise<void> {
    await this.holds.update(scope, { id: holdId }, { appointmentId }, tx);
  }
}

/** A hold's status as the API answers it: an active hold whose time has come is expired, whether or not its job has run. */
function statusAt(row: HoldEntity, now: number): HoldStatus {
  return row.status === 'active' && row.expiresAt.getTime() <= now ? 'expired' : row.status;
}

export function holdDto(row: HoldEntity, now: number): HoldDto {
  return {
    id: row.id,
    providerId: row.providerId,
    datetime: row.startsAt.toISOString(),
    end: row.endsAt.toISOString(),
    appointmentTypeId: row.appointmentTypeId,
    expiresAt: row.expiresAt.toISOString(),
    status: statusAt(row, now),
    appointmentId: row.appointmentId,
  };
}
