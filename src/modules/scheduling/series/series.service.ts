import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../../common/auth/auth.types';
import { FieldError, ValidationFailedException } from '../../../common/http/errors/problem';
import { PageRequest } from '../../../common/http/lists/pagination';
import { BusinessClock } from '../../../common/time/business-clock';
import { clock } from '../../../common/time/clock';
import { retryOnDeadlock, sqlStateOf } from '../../../database/database-errors';
import { ReadReplicas } from '../../../database/read-replicas';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { Transactions } from '../../../database/transactions';
import { EventsService } from '../../events';
import { PatientDto } from '../../patients';
import { BookingPolicy, durationPolicy, typePolicy } from '../appointments/appointment-policies';
import { AppointmentsService, BookingRequest } from '../appointments/appointments.service';
import { isActive } from '../appointments/transitions';
import { AppointmentTypesService } from '../appointment-types/appointment-types.service';
import { AvailabilityService, DEFAULT_DURATION, offering, Unbookable } from '../availability/availability.service';
import { ProviderEntity } from '../providers/entities/provider.entity';
import { ProvidersRepository } from '../providers/providers.repository';
import { definedOnly } from '../defined-only';
import {
  CancelSeriesDto,
  CreateSeriesDto,
  ListSeriesQueryDto,
  OnConflict,
  SeriesConflictDto,
  SeriesDto,
  SeriesListDto,
  SeriesOccurrenceDto,
  SeriesOutcomeDto,
  SeriesScopeDto,
  UpdateSeriesDto,
} from './dto/series.dto';
import { AppointmentSeriesEntity, ConflictReason, StoredOccurrence } from './entities/appointment-series.entity';
import { atLocalTime, expand, Occurrence } from './expansion';
import { OccurrenceRow, SeriesRepository } from './series.repository';
import { SeriesConflictsException, SeriesNotFoundException } from './series.exceptions';

const CONFLICT_REASON: Record<Unbookable, ConflictReason> = {
  overlap: 'overlap',
  outside_working_hours: 'outside_working_hours',
  time_off: 'time_off',
  in_the_past: 'policy',
  off_grid: 'policy',
  provider_inactive: 'policy',
  too_soon: 'policy',
  beyond_horizon: 'policy',
  buffer: 'policy',
  daily_cap: 'policy',
};

/**
 * How many times a series write runs again after the overlap constraint refused a row its checks had passed
 * (a writer that did not take the provider's turn): the next run's checks see that row and skip or refuse it.
 */
const CONSTRAINT_ATTEMPTS = 3;
/** SQLSTATE of a statement sent after an earlier one failed the transaction. */
const IN_FAILED_TRANSACTION = '25P02';

/** An occurrence that cannot be booked or moved, with what its alternatives are searched under. */
interface Conflict {
  index: number;
  start: number;
  reason: ConflictReason;
  provider: ProviderEntity;
  policy: BookingPolicy;
  exceptId?: string;
}

/** What a series write has met so far: the occurrence it is at, and those refused. */
interface Progress {
  at?: Omit<Conflict, 'reason'>;
  conflicts: Conflict[];
}

/** Thrown inside a series' transaction to roll it back: its refusals (reject), or a dry run's result. */
class RolledBack extends Error {
  constructor(readonly series?: SeriesDto) {
    super('series rolled back');
  }
}

/** What a create books: the checked references, the policy and the occurrences. */
interface SeriesPlan {
  patient: PatientDto;
  provider: ProviderEntity;
  policy: BookingPolicy;
  typeName: string | null;
  timezone: string;
  occurrences: Occurrence[];
}

@Injectable()
export class SeriesService {
  constructor(
    private readonly series: SeriesRepository,
    private readonly appointments: AppointmentsService,
    private readonly providers: ProvidersRepository,
    private readonly types: AppointmentTypesService,
    private readonly availability: AvailabilityService,
    private readonly transactions: Transactions,
    private readonly events: EventsService,
    private readonly clock: BusinessClock,
    private readonly replicas: ReadReplicas,
  ) {}

  /**
   * POST /scheduling/series: every occurrence checked and booked as POST /scheduling/book books one, in one
   * transaction. `reject`: any refusal rolls it all back (409 series_conflicts); `skip`: the refused ones are
   * recorded as skipped. A dry run does the same and rolls back, answering the series it would have made.
   */
  async create(auth: AuthContext, dto: CreateSeriesDto, dryRun: boolean): Promise<SeriesDto | SeriesOutcomeDto> {
    const plan = await this.plan(auth, dto);
    const onConflict = dto.onConflict ?? 'reject';
    const outcome = await this.write(auth, onConflict, dryRun, (progress, tx) =>
      this.book(auth, plan, dto, onConflict, dryRun, progress, tx),
    );
    return dryRun ? { ...outcome.series, conflicts: outcome.conflicts } : outcome.series;
  }

  async get(scope: TenantScope, id: string): Promise<SeriesDto> {
    const row = await this.series.findById(scope, id);
    if (!row) throw new SeriesNotFoundException();
    return seriesDto(row, await this.series.appointmentsOf(scope, [id]));
  }

  async list(auth: AuthContext, query: ListSeriesQueryDto, page: PageRequest): Promise<SeriesListDto> {
    const { result, appointments } = await this.replicas.read(async (db) => {
      const result = await this.series.list(auth, { patientId: query.patientId, providerId: query.providerId }, page, db);
      const ids = result.items.map((s) => s.id);
      return { result, appointments: ids.length ? await this.series.appointmentsOf(auth, ids, db) : [] };
    });
    return { series: result.items.map((row) => seriesDto(row, appointments)), nextCursor: result.nextCursor };
  }

  /**
   * PATCH /scheduling/series/{id}: moves each scheduled or confirmed occurrence in scope that has not started,
   * through the same change as PATCH /scheduling/appointments/{id} (ids, manage links kept, reminders
   * re-planned, `appointment.rescheduled`), in one transaction; conflicts as on create.
   */
  async update(auth: AuthContext, id: string, dto: UpdateSeriesDto): Promise<SeriesOutcomeDto> {
    const { changes } = dto;
    const errors = scopeProblems(dto);
    if (changes.localTime === undefined && changes.durationMinutes === undefined && changes.providerId === undefined) {
      errors.push({ field: 'changes', message: 'must change at least one of localTime, durationMinutes and providerId' });
    }
    const row = await this.series.findById(auth, id);
    if (!row) throw new SeriesNotFoundException();
    if (changes.providerId) {
      const [provider, type] = await Promise.all([
        this.providers.findById(auth, changes.providerId),
        row.appointmentTypeId ? this.types.find(auth, row.appointmentTypeId) : undefined,
      ]);
      if (!provider) errors.push({ field: 'changes.providerId', message: 'names no provider of this tenant and mode' });
      else if (!offering(type, [provider]).length)
        errors.push({ field: 'changes.providerId', message: "does not offer the series' appointment type" });
    }
    if (errors.length) throw new ValidationFailedException(errors);
    const onConflict = dto.onConflict ?? 'reject';
    const outcome = await this.write(auth, onConflict, false, (progress, tx) => this.move(auth, id, dto, onConflict, progress, tx));
    return { ...outcome.series, conflicts: outcome.conflicts };
  }

  /** POST /scheduling/series/{id}/cancel: cancels each scheduled or confirmed occurrence in scope that has not started, as a single cancel does. */
  async cancel(auth: AuthContext, id: string, dto: CancelSeriesDto): Promise<SeriesDto> {
    const errors = scopeProblems(dto);
    if (errors.length) throw new ValidationFailedException(errors);
    return retryOnDeadlock(() =>
      this.transactions.run(async (tx) => {
        const { row, inScope } = await this.lockInScope(auth, id, dto, tx);
        for (const { appointment } of inScope)
          await this.appointments.changeWithin(auth, appointment.id, { status: 'cancelled' }, 'api', tx);
        const ends = dto.scope === 'all' || dto.from === row.occurrences.find((o) => o.appointmentId)?.appointmentId;
        const status = ends ? 'cancelled' : row.status;
        if (status !== row.status || inScope.length) await this.series.update(auth, { id }, { status, updatedAt: clock.now() }, tx);
        const series = seriesDto({ ...row, status }, await this.series.appointmentsOf(auth, [id], tx));
        if (status !== row.status) await this.events.record(auth, 'series.cancelled', series, tx);
        else if (inScope.length) await this.events.record(auth, 'series.updated', series, tx);
        return series;
      }),
    );
  }

  /** The references, zone, policy and occurrences of a create, or 400 naming every bad field. */
  private async plan(auth: AuthContext, dto: CreateSeriesDto): Promise<SeriesPlan> {
    const { patient, provider, type, errors } = await this.appointments.bookingReferences(auth, dto);
    const timezone = dto.timezone ?? provider?.timezone ?? 'UTC';
    const expansion = expand({ start: dto.start, timezone, rrule: dto.rrule, exdates: dto.exdates ?? [] });
    if ('errors' in expansion) errors.push(...expansion.errors);
    if (errors.length || 'errors' in expansion) throw new ValidationFailedException(errors);
    return {
      patient: patient!,
      provider: provider!,
      policy: type ? typePolicy(type) : durationPolicy(dto.duration ?? DEFAULT_DURATION),
      typeName: type ? type.name : null,
      timezone,
      occurrences: expansion.occurrences,
    };
  }

  /**
   * Runs a series write (one transaction, deadlocks retried) and answers its series and the conflicts it
   * met, alternatives included. A refusal under `reject` is 409 series_conflicts after the rollback. When the
   * overlap constraint refused a row the checks had passed, the transaction failed: with `skip` (or a dry
   * run) it runs again, and its checks then see the row that won.
   */
  private async write(
    scope: TenantScope,
    onConflict: OnConflict,
    dryRun: boolean,
    work: (progress: Progress, tx: EntityManager) => Promise<SeriesDto>,
  ): Promise<{ series: SeriesDto; conflicts: SeriesConflictDto[] }> {
    for (let attempt = 1; ; attempt++) {
      const progress: Progress = { conflicts: [] };
      try {
        const series = await retryOnDeadlock(() => {
          progress.conflicts = [];
          return this.transactions.run((tx) => work(progress, tx));
        });
        return { series, conflicts: await this.alternatives(scope, progress.conflicts) };
      } catch (err) {
        if (err instanceof RolledBack && err.series)
          return { series: err.series, conflicts: await this.alternatives(scope, progress.conflicts) };
        if (err instanceof RolledBack) throw new SeriesConflictsException(await this.alternatives(scope, progress.conflicts));
        const refusal = this.appointments.refusalOf(err);
        if (!refusal && sqlStateOf(err) !== IN_FAILED_TRANSACTION) throw err;
        if ((onConflict === 'skip' || dryRun) && attempt < CONSTRAINT_ATTEMPTS) continue;
        const met = progress.at && !progress.conflicts.some((c) => c.index === progress.at!.index);
        const conflicts = met
          ? [...progress.conflicts, { ...progress.at!, reason: CONFLICT_REASON[refusal ?? 'overlap'] }]
          : progress.conflicts;
        throw new SeriesConflictsException(await this.alternatives(scope, conflicts));
      }
    }
  }

  /** A create's transaction: the series row, then each occurrence claimed and recorded as a single booking is. */
  private async book(
    auth: AuthContext,
    plan: SeriesPlan,
    dto: CreateSeriesDto,
    onConflict: OnConflict,
    dryRun: boolean,
    progress: Progress,
    tx: EntityManager,
  ): Promise<SeriesDto> {
    const row = await this.series.insert(
      auth,
      {
        patientId: plan.patient.id,
        providerId: plan.provider.id,
        appointmentTypeId: plan.policy.typeId,
        duration: plan.policy.duration,
        timezone: plan.timezone,
        start: dto.start,
        rrule: dto.rrule,
        exdates: dto.exdates ?? [],
        status: 'active',
        occurrences: [],
        overridePolicies: dto.overridePolicies ?? false,
        notes: dto.notes ?? null,
      },
      tx,
    );
    const stored: StoredOccurrence[] = [];
    const booked: OccurrenceRow[] = [];
    // Only the first occurrence is held to the type's minimum notice.
    const later: BookingPolicy = { ...plan.policy, noticeMinutes: 0 };
    for (const [i, occurrence] of plan.occurrences.entries()) {
      const policy = i === 0 ? plan.policy : later;
      progress.at = { index: occurrence.index, start: occurrence.start, provider: plan.provider, policy };
      const request: BookingRequest = {
        start: occurrence.start,
        policy,
        overridePolicies: dto.overridePolicies ?? false,
        type: plan.typeName,
        notes: dto.notes ?? null,
        seriesId: row.id,
      };
      const refusal = await this.refusal(() => this.appointments.claimSlot(auth, plan.provider, request, tx));
      const datetime = new Date(occurrence.start).toISOString();
      if (refusal) {
        progress.conflicts.push({ ...progress.at, reason: CONFLICT_REASON[refusal] });
        stored.push({ index: occurrence.index, datetime, appointmentId: null, reason: CONFLICT_REASON[refusal] });
      } else if (progress.conflicts.length && onConflict === 'reject' && !dryRun) {
        // Refused already: the rest are only checked, so that the 409 lists every conflict.
        stored.push({ index: occurrence.index, datetime, appointmentId: null, reason: null });
      } else {
        // One notice for the series, with its first booked occurrence, not one per week.
        const notify = dto.notifyPatient === true && booked.length === 0;
        const appointment = await this.appointments.recordBooking(
          auth,
          plan.provider,
          { ...request, notifyPatient: notify },
          plan.patient,
          tx,
        );
        booked.push({
          id: appointment.id,
          seriesId: row.id,
          providerId: appointment.providerId,
          startsAt: new Date(appointment.datetime),
          duration: appointment.duration,
          status: appointment.status,
        });
        stored.push({ index: occurrence.index, datetime, appointmentId: appointment.id, reason: null });
      }
    }
    progress.at = undefined;
    if (progress.conflicts.length && onConflict === 'reject' && !dryRun) throw new RolledBack();
    await this.series.update(auth, { id: row.id }, { occurrences: stored }, tx);
    const series = seriesDto({ ...row, occurrences: stored }, booked);
    await this.events.record(auth, 'series.created', series, tx);
    if (dryRun) {
      // Nothing of a dry run is kept: its appointments and the series' id are not shown.
      throw new RolledBack({ ...series, occurrences: series.occurrences.map((o) => ({ ...o, appointmentId: null })) });
    }
    return series;
  }

  /** An edit's transaction: each occurrence in scope changed as PATCH /scheduling/appointments/{id} changes one. */
  private async move(
    auth: AuthContext,
    id: string,
    dto: UpdateSeriesDto,
    onConflict: OnConflict,
    progress: Progress,
    tx: EntityManager,
  ): Promise<SeriesDto> {
    const { changes } = dto;
    const { row, inScope } = await this.lockInScope(auth, id, dto, tx);
    const providers = new Map<string, ProviderEntity>();
    for (const { occurrence, appointment } of inScope) {
      const providerId = changes.providerId ?? appointment.providerId;
      if (!providers.has(providerId)) providers.set(providerId, (await this.providers.findById(auth, providerId, tx))!);
      const provider = providers.get(providerId)!;
      const from = appointment.startsAt.getTime();
      const start = changes.localTime ? atLocalTime(from, row.timezone, changes.localTime) : from;
      const duration = changes.durationMinutes ?? appointment.duration;
      const policy = await this.appointments.policyOf(auth, row, duration, tx);
      progress.at = { index: occurrence.index, start, provider, policy, exceptId: appointment.id };
      const change = definedOnly({
        datetime: changes.localTime ? new Date(start).toISOString() : undefined,
        duration: changes.durationMinutes,
        providerId: changes.providerId,
        overridePolicies: row.overridePolicies,
      });
      const refusal = await this.refusal(() => this.appointments.changeWithin(auth, appointment.id, change, 'api', tx));
      if (refusal) progress.conflicts.push({ ...progress.at, reason: CONFLICT_REASON[refusal] });
    }
    progress.at = undefined;
    if (progress.conflicts.length && onConflict === 'reject') throw new RolledBack();
    const all = dto.scope === 'all';
    const start = all && changes.localTime ? `${row.start.slice(0, 11)}${changes.localTime}` : undefined;
    const patch = definedOnly({
      start,
      providerId: all ? changes.providerId : undefined,
      duration: all ? changes.durationMinutes : undefined,
    });
    const updated = { ...row, ...patch, updatedAt: clock.now() };
    await this.series.update(auth, { id }, { ...patch, updatedAt: updated.updatedAt }, tx);
    const series = seriesDto(updated, await this.series.appointmentsOf(auth, [id], tx));
    await this.events.record(auth, 'series.updated', series, tx);
    return series;
  }

  /**
   * The series, locked with its appointments (in start order, as a single change locks its row before the
   * provider's schedule), and its occurrences in scope: scheduled or confirmed, not yet started, from `from`
   * on for `following`.
   */
  private async lockInScope(
    scope: TenantScope,
    id: string,
    dto: SeriesScopeDto,
    tx: EntityManager,
  ): Promise<{ row: AppointmentSeriesEntity; inScope: { occurrence: StoredOccurrence; appointment: OccurrenceRow }[] }> {
    const row = await this.series.findByIdLocked(scope, id, tx);
    if (!row) throw new SeriesNotFoundException();
    await this.series.lockAppointmentsOf(scope, id, tx);
    const [appointments, now] = await Promise.all([this.series.appointmentsOf(scope, [id], tx), this.clock.nowMs(scope, tx)]);
    const byId = new Map(appointments.map((a) => [a.id, a]));
    const fromIndex = dto.scope === 'following' ? row.occurrences.find((o) => o.appointmentId === dto.from)?.index : 0;
    if (fromIndex === undefined) throw new ValidationFailedException([{ field: 'from', message: 'names no occurrence of this series' }]);
    const inScope = row.occurrences
      .filter((o) => o.index >= fromIndex && o.appointmentId)
      .map((occurrence) => ({ occurrence, appointment: byId.get(occurrence.appointmentId!)! }))
      .filter(({ appointment }) => appointment && isActive(appointment.status) && appointment.startsAt.getTime() > now);
    return { row, inScope };
  }

  /** Runs a booking step and answers the rule that refused it, if one did (the transaction goes on); anything else throws. */
  private async refusal(step: () => Promise<unknown>): Promise<Unbookable | undefined> {
    try {
      await step();
      return undefined;
    } catch (err) {
      const refusal = this.appointments.refusalOf(err);
      if (!refusal) throw err;
      return refusal;
    }
  }

  private async alternatives(scope: TenantScope, conflicts: Conflict[]): Promise<SeriesConflictDto[]> {
    return Promise.all(
      conflicts.map(async (c) => ({
        index: c.index,
        datetime: new Date(c.start).toISOString(),
        reason: c.reason,
        alternatives: await this.availability.alternatives(scope, [c.provider], c.start, c.policy, c.exceptId),
      })),
    );
  }
}

/** A scope's own problems: `from` is required for `following` and means nothing for `all`. */
function scopeProblems(dto: SeriesScopeDto): FieldError[] {
  if (dto.scope === 'following' && !dto.from) return [{ field: 'from', message: "is required with scope 'following'" }];
  if (dto.scope === 'all' && dto.from) return [{ field: 'from', message: "is only for scope 'following'" }];
  return [];
}

/** The series as the API answers it: each booked occurrence where its appointment is now, and in its status. */
function seriesDto(row: AppointmentSeriesEntity, appointments: OccurrenceRow[]): SeriesDto {
  const byId = new Map(appointments.map((a) => [a.id, a]));
  const occurrences: SeriesOccurrenceDto[] = row.occurrences.map((o) => {
    const appointment = o.appointmentId ? byId.get(o.appointmentId) : undefined;
    return {
      index: o.index,
      datetime: appointment ? appointment.startsAt.toISOString() : o.datetime,
      appointmentId: o.appointmentId,
      status: appointment ? appointment.status : 'skipped',
      reason: o.reason,
    };
  });
  return {
    id: row.id,
    patientId: row.patientId,
    providerId: row.providerId,
    appointmentTypeId: row.appointmentTypeId,
    timezone: row.timezone,
    start: row.start,
    rrule: row.rrule,
    exdates: row.exdates,
    status: row.status,
    occurrences,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
