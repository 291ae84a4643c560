import { Injectable } from '@nestjs/common';
import { problemOf } from '../../common/http/problem';
import type { ApiException } from '../../common/http/problem';
import { TenantScope } from '../../database/tenant-owned.entity';
import { PatientsService } from '../patients';
import {
  AppointmentsService,
  AvailabilityService,
  parseRange,
  type SlotDto,
  ProviderEntity,
  ProvidersService,
  SlotUnavailableException,
} from '../scheduling';
import {
  PublicAvailabilityDto,
  PublicAvailabilityQueryDto,
  PublicBookingDto,
  PublicBookingResultDto,
  PublicSchedulerDto,
  PublicSlotDto,
} from './dto/public-scheduler.dto';
import { SchedulerEntity } from './entities/scheduler.entity';
import { SchedulerNotFoundException } from './schedulers.exceptions';
import { SchedulersRepository } from './schedulers.repository';

const ALTERNATIVES = 3;

/**
 * The public booking page: what anyone may do with a scheduler's id and no key. Everything runs in the
 * scheduler's tenant and mode, taken from its row; answers carry no ids but the scheduler's and the new
 * appointment's, and nothing about any patient.
 */
@Injectable()
export class PublicBookingService {
  constructor(
    private readonly schedulers: SchedulersRepository,
    private readonly providers: ProvidersService,
    private readonly availability: AvailabilityService,
    private readonly appointments: AppointmentsService,
    private readonly patients: PatientsService,
  ) {}

  /** GET /public/schedulers/{id}: the page, counting the view in the same statement that reads it. */
  async view(id: string): Promise<PublicSchedulerDto> {
    const scheduler = await this.schedulers.countPublicView(id);
    if (!scheduler) throw new SchedulerNotFoundException();
    const providers = await this.activeProviders(scheduler);
    return {
      id: scheduler.id,
      name: scheduler.name,
      slug: scheduler.slug,
      description: scheduler.description,
      duration: scheduler.duration,
      type: scheduler.type,
      providers: providers.map((p) => ({ name: p.name, timezone: p.timezone })),
    };
  }

  /** The active scheduler behind a public id; 404 for an unknown or inactive one. */
  async require(id: string): Promise<SchedulerEntity> {
    const scheduler = await this.schedulers.findPublic(id);
    if (!scheduler) throw new SchedulerNotFoundException();
    return scheduler;
  }

  /** Free slots of the page's duration across its providers; a time several providers have free is listed once. */
  async slots(scheduler: SchedulerEntity, query: PublicAvailabilityQueryDto): Promise<PublicAvailabilityDto> {
    const range = parseRange(query.startDate, query.endDate);
    const slots = await this.availability.slotsFor(scheduler, await this.activeProviders(scheduler), range, scheduler.duration);
    return { slots: distinctTimes(slots) };
  }

  /**
   * Books `datetime` with the first of the page's providers free then. The patient is found by email in
   * the scheduler's tenant and mode or created as a lead, inside the booking's transaction (so a refused
   * booking leaves no lead behind), and the booking is counted in it too. The exclusion constraint settles
   * races exactly as for POST /scheduling/book.
   */
  async book(scheduler: SchedulerEntity, dto: PublicBookingDto): Promise<PublicBookingResultDto> {
    const scope: TenantScope = { tenantId: scheduler.tenantId, mode: scheduler.mode };
    const request = { start: Date.parse(dto.datetime), duration: scheduler.duration, type: scheduler.type, notes: null };
    const lead = { firstName: dto.firstName, lastName: dto.lastName, email: dto.email, phone: dto.phone };
    const refusals: SlotUnavailableException[] = [];
    for (const provider of await this.activeProviders(scheduler)) {
      try {
        const appointment = await this.appointments.insert(scope, provider, request, {
          patientOf: (tx) => this.patients.findOrCreateLead(scope, lead, tx),
          afterInsert: async (_booked, tx) => {
            // Deactivated since it was read: the booking rolls back with the count.
            if (!(await this.schedulers.countBooking(scope, scheduler.id, tx))) throw new SchedulerNotFoundException();
          },
        });
        return {
          id: appointment.id,
          schedulerId: scheduler.id,
          datetime: appointment.datetime,
          end: appointment.end,
          duration: appointment.duration,
          status: 'scheduled',
          type: appointment.type,
          provider: { name: provider.name, timezone: provider.timezone },
        };
      } catch (err) {
        if (!(err instanceof SlotUnavailableException)) throw err;
        refusals.push(err);
      }
    }
    throw unavailable(refusals);
  }

  private async activeProviders(scheduler: SchedulerEntity): Promise<ProviderEntity[]> {
    return (await this.providers.findMany(scheduler, scheduler.providerIds)).filter((p) => p.isActive);
  }
}

/** Slots without their provider, one per start time, ascending. */
function distinctTimes(slots: SlotDto[]): PublicSlotDto[] {
  const byStart = new Map<string, PublicSlotDto>();
  for (const s of slots) if (!byStart.has(s.start)) byStart.set(s.start, { start: s.start, end: s.end });
  return [...byStart.values()].sort((a, b) => a.start.localeCompare(b.start));
}

/** 409 slot_unavailable with the next free times of any of the page's providers, without naming them. */
function unavailable(refusals: SlotUnavailableException[]): ApiException {
  const alternatives = distinctTimes(refusals.flatMap((r) => r.extensions.alternatives as SlotDto[])).slice(0, ALTERNATIVES);
  const detail = refusals.length === 1 ? refusals[0].detail : 'No provider of this page is free at the requested time';
  return problemOf('slot_unavailable', detail, { alternatives });
}
