import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../../common/auth/auth.types';
import { FieldError, ValidationFailedException } from '../../../common/http/errors/problem';
import { PageRequest } from '../../../common/http/lists/pagination';
import { violates } from '../../../database/database-errors';
import { ReadReplicas } from '../../../database/read-replicas';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { Transactions } from '../../../database/transactions';
import { noSuchPatient, PatientsService } from '../../patients';
import { AppointmentsRepository } from '../appointments/appointments.repository';
import { isActive } from '../appointments/transitions';
import { AppointmentTypesService } from '../appointment-types/appointment-types.service';
import { offering } from '../availability/availability.service';
import { minutesOf } from '../availability/slots';
import { ProvidersRepository } from '../providers/providers.repository';
import { WaitlistEntryExistsException, WaitlistEntryNotFoundException } from '../scheduling.exceptions';
import { CreateWaitlistEntryDto, ListWaitlistQueryDto, WaitlistEntryDto, WaitlistEntryListDto } from './dto/waitlist.dto';
import { WaitlistEntryEntity } from './entities/waitlist-entry.entity';
import { WaitlistOfferEntity } from './entities/waitlist-offer.entity';
import { WaitlistOffers } from './waitlist-offers.service';
import { WaitlistEntriesRepository, WaitlistOffersRepository } from './waitlist.repository';

const ACTIVE_ENTRY = 'UQ_WAITLIST_ENTRIES_ACTIVE';

/**
 * Waitlist entries: a patient waiting for a slot of a type. Creating one offers nothing; time freed later
 * does (WaitlistOffers). One waiting (or offered) entry per patient and type, kept by a unique index.
 */
@Injectable()
export class WaitlistService {
  constructor(
    private readonly entries: WaitlistEntriesRepository,
    private readonly offers: WaitlistOffersRepository,
    private readonly offering: WaitlistOffers,
    private readonly patients: PatientsService,
    private readonly types: AppointmentTypesService,
    private readonly providers: ProvidersRepository,
    private readonly appointments: AppointmentsRepository,
    private readonly transactions: Transactions,
    private readonly replicas: ReadReplicas,
  ) {}

  /** POST /scheduling/waitlist. Ids in the body that name nothing of the caller's tenant and mode are 400s. */
  async create(auth: AuthContext, dto: CreateWaitlistEntryDto): Promise<WaitlistEntryDto> {
    const providerIds = dto.providerIds && [...new Set(dto.providerIds.map((id) => id.toLowerCase()))];
    const [patient, type, providers, appointment] = await Promise.all([
      this.patients.find(auth, dto.patientId),
      this.types.find(auth, dto.appointmentTypeId),
      providerIds ? Promise.all(providerIds.map((id) => this.providers.findById(auth, id))) : [],
      dto.appointmentId ? this.appointments.findById(auth, dto.appointmentId) : undefined,
    ]);
    const errors: FieldError[] = [];
    if (!patient) errors.push(noSuchPatient('patientId'));
    if (!type || !type.isActive)
      errors.push({ field: 'appointmentTypeId', message: 'names no active appointment type of this tenant and mode' });
    (dto.providerIds ?? []).forEach((_, i) => {
      const provider = providers[providerIds!.indexOf(dto.providerIds![i].toLowerCase())];
      if (!provider) errors.push({ field: `providerIds.${i}`, message: 'names no provider of this tenant and mode' });
      else if (type && !offering(type, [provider]).length)
        errors.push({ field: `providerIds.${i}`, message: 'does not offer this appointment type' });
    });
    if (dto.earliestDate && dto.latestDate && dto.latestDate < dto.earliestDate)
      errors.push({ field: 'latestDate', message: 'must not be before earliestDate' });
    (dto.windows ?? []).forEach((w, i) => {
      if (minutesOf(w.end) <= minutesOf(w.start)) errors.push({ field: `windows.${i}.end`, message: 'must be after start' });
    });
    if (appointment === null || (appointment && appointment.patientId !== patient?.id)) {
      errors.push({ field: 'appointmentId', message: 'names no appointment of this patient in this tenant and mode' });
    } else if (appointment && !isActive(appointment.status)) {
      errors.push({ field: 'appointmentId', message: 'must be a scheduled or confirmed appointment' });
    }
    if (errors.length) throw new ValidationFailedException(errors);
    const existing = await this.entries.findActive(auth, patient!.id, type!.id);
    if (existing) throw new WaitlistEntryExistsException(existing.id);
    try {
      const row = await this.entries.insert(auth, {
        patientId: patient!.id,
        appointmentTypeId: type!.id,
        providerIds: providerIds ?? type!.providerIds,
        earliestDate: dto.earliestDate ?? null,
        latestDate: dto.latestDate ?? null,
        windows: (dto.windows ?? []).map((w) => ({ weekday: w.weekday, start: w.start, end: w.end })),
        appointmentId: appointment?.id ?? null,
        status: 'waiting',
      });
      return entryDto(row, []);
    } catch (err) {
      if (!violates(err, ACTIVE_ENTRY)) throw err;
      const winner = await this.entries.findActive(auth, patient!.id, type!.id);
      throw new WaitlistEntryExistsException(winner?.id ?? '');
    }
  }

  async list(auth: AuthContext, query: ListWaitlistQueryDto, page: PageRequest): Promise<WaitlistEntryListDto> {
    const filters = {
      status: query.status,
      patientId: query.patientId?.toLowerCase(),
      appointmentTypeId: query.appointmentTypeId?.toLowerCase(),
    };
    const { result, offers } = await this.replicas.read(async (db) => {
      const result = await this.entries.list(auth, filters, page, db);
      const ids = result.items.map((e) => e.id);
      return { result, offers: await this.offers.ofEntries(auth, ids, db) };
    });
    return { entries: result.items.map((e) => entryDto(e, offers.get(e.id)!)), nextCursor: result.nextCursor };
  }

  async get(scope: TenantScope, id: string): Promise<WaitlistEntryDto> {
    const row = await this.entries.findById(scope, id);
    if (!row) throw new WaitlistEntryNotFoundException();
    const offers = await this.offers.ofEntries(scope, [id]);
    return entryDto(row, offers.get(id)!);
  }

  /**
   * DELETE /scheduling/waitlist/{id}: the entry `cancelled`; its pending offer withdrawn (expired) and its
   * hold released, which frees that time for the next entry. A booked or cancelled entry stays as it is.
   */
  async cancel(scope: TenantScope, id: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const row = await this.entries.findByIdLocked(scope, id, tx);
      if (!row) throw new WaitlistEntryNotFoundException();
      if (row.status !== 'waiting' && row.status !== 'offered') return;
      const pending = await this.offers.pendingOf(scope, id, tx);
      if (pending) await this.offering.end(scope, pending, 'expired', tx);
      await this.entries.move(scope, id, ['waiting', 'offered'], 'cancelled', tx);
    });
  }
}

export function entryDto(row: WaitlistEntryEntity, offers: WaitlistOfferEntity[]): WaitlistEntryDto {
  return {
    id: row.id,
    patientId: row.patientId,
    appointmentTypeId: row.appointmentTypeId,
    providerIds: row.providerIds,
    earliestDate: row.earliestDate,
    latestDate: row.latestDate,
    windows: row.windows,
    appointmentId: row.appointmentId,
    status: row.status,
    offers: offers.map((o) => ({
      id: o.id,
      datetime: o.startsAt.toISOString(),
      providerId: o.providerId,
      expiresAt: o.expiresAt.toISOString(),
      status: o.status,
    })),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
