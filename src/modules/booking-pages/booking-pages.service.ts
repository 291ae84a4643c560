import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../common/auth/auth.types';
import { apiPath } from '../../common/http/responses/response-headers';
import { AppConfig } from '../../config/app-config';
import { PageRequest } from '../../common/http/lists/pagination';
import { ValidationFailedException } from '../../common/http/errors/problem';
import { SlugTakenException, slugify } from '../../common/slug';
import { violates } from '../../database/database-errors';
import { ReadReplicas } from '../../database/read-replicas';
import { AppointmentTypesService, ProvidersService } from '../scheduling';
import { CreateSchedulerDto, ListSchedulersQueryDto, SchedulerDto, SchedulerListDto, UpdateSchedulerDto } from './dto/scheduler.dto';
import { SchedulerEntity } from './entities/scheduler.entity';
import { SchedulerNotFoundException } from './booking-pages.exceptions';
import { SchedulerConstraint, BookingPagesRepository, SchedulerValues } from './booking-pages.repository';

/** Schedulers (public booking pages) as the tenant's keys manage them. */
@Injectable()
export class BookingPagesService {
  constructor(
    private readonly schedulers: BookingPagesRepository,
    private readonly providers: ProvidersService,
    private readonly types: AppointmentTypesService,
    private readonly config: AppConfig,
    private readonly replicas: ReadReplicas,
  ) {}

  async create(auth: AuthContext, dto: CreateSchedulerDto): Promise<SchedulerDto> {
    await this.providers.checkIds(auth, dto.providerIds);
    if (dto.appointmentTypeId) {
      await this.types.named(auth, dto.appointmentTypeId);
      const errors = (['duration', 'type'] as const).flatMap((field) =>
        dto[field] === undefined ? [] : [{ field, message: 'must be omitted with appointmentTypeId (the type gives it)' }],
      );
      if (errors.length) throw new ValidationFailedException(errors);
    }
    const name = dto.name.trim();
    const values: SchedulerValues = {
      name,
      slug: dto.slug ?? slugify(name, 'booking'),
      description: dto.description?.trim() || null,
      providerIds: dto.providerIds.map((id) => id.toLowerCase()),
      duration: dto.duration ?? null,
      type: dto.type?.trim() || null,
      appointmentTypeId: dto.appointmentTypeId?.toLowerCase() ?? null,
      isActive: dto.isActive ?? true,
      requirePhone: dto.requirePhone ?? false,
    };
    try {
      return this.dto(await this.schedulers.create(auth, values));
    } catch (err) {
      if (violates(err, SchedulerConstraint.Slug)) throw new SlugTakenException('scheduler', values.slug);
      throw err;
    }
  }

  async list(auth: AuthContext, query: ListSchedulersQueryDto, page: PageRequest): Promise<SchedulerListDto> {
    const result = await this.replicas.read((db) => this.schedulers.list(auth, { isActive: query.isActive }, page, db));
    return { schedulers: result.items.map((row) => this.dto(row)), nextCursor: result.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<SchedulerDto> {
    const row = await this.schedulers.findById(auth, id);
    if (!row) throw new SchedulerNotFoundException();
    return this.dto(row);
  }

  async findBySlug(auth: AuthContext, slug: string): Promise<SchedulerDto | null> {
    const row = await this.schedulers.findOne(auth, { slug });
    return row && this.dto(row);
  }

  async update(auth: AuthContext, id: string, dto: UpdateSchedulerDto): Promise<SchedulerDto> {
    if (dto.providerIds) await this.providers.checkIds(auth, dto.providerIds);
    const current = await this.schedulers.findById(auth, id);
    if (!current) throw new SchedulerNotFoundException();
    const typed = await this.typeChange(auth, current, dto);
    const patch: Partial<SchedulerValues> = {
      name: dto.name?.trim(),
      slug: dto.slug,
      description: dto.description === undefined ? undefined : dto.description?.trim() || null,
      providerIds: dto.providerIds?.map((p) => p.toLowerCase()),
      duration: dto.duration,
      type: dto.type === undefined ? undefined : dto.type?.trim() || null,
      isActive: dto.isActive,
      requirePhone: dto.requirePhone,
      ...typed,
    };
    try {
      const row = await this.schedulers.applyPatch(auth, id, patch);
      if (!row) throw new SchedulerNotFoundException();
      return this.dto(row);
    } catch (err) {
      if (violates(err, SchedulerConstraint.Slug)) throw new SlugTakenException('scheduler', dto.slug!);
      throw err;
    }
  }

  /**
   * A page books a bare duration (and free-text type) or an appointment type, never both: naming a type
   * clears duration and type, clearing it needs a duration in the same PATCH, and a typed page takes no
   * duration or type of its own. 400 naming the member otherwise.
   */
  private async typeChange(auth: AuthContext, current: SchedulerEntity, dto: UpdateSchedulerDto): Promise<Partial<SchedulerValues>> {
    const ownMembers = (['duration', 'type'] as const).filter((field) => dto[field] !== undefined && dto[field] !== null);
    const refuse = (message: string): never => {
      throw new ValidationFailedException(ownMembers.map((field) => ({ field, message })));
    };
    if (typeof dto.appointmentTypeId === 'string') {
      await this.types.named(auth, dto.appointmentTypeId);
      if (ownMembers.length) refuse('must be omitted with appointmentTypeId (the type gives it)');
      return { appointmentTypeId: dto.appointmentTypeId.toLowerCase(), duration: null, type: null };
    }
    if (dto.appointmentTypeId === null) {
      if (current.appointmentTypeId && dto.duration === undefined) {
        throw new ValidationFailedException([{ field: 'duration', message: 'is required when appointmentTypeId is cleared' }]);
      }
      return { appointmentTypeId: null };
    }
    if (current.appointmentTypeId && ownMembers.length)
      refuse('cannot be set on a page that books an appointment type; clear appointmentTypeId with it');
    return {};
  }

  private dto(row: SchedulerEntity): SchedulerDto {
    return schedulerDto(row, this.config.http.publicUrl);
  }
}

/** A scheduler as the API answers it, with its public page's URL. */
function schedulerDto(row: SchedulerEntity, publicUrl: string): SchedulerDto {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    providerIds: row.providerIds,
    duration: row.duration,
    type: row.type,
    appointmentTypeId: row.appointmentTypeId,
    isActive: row.isActive,
    requirePhone: row.requirePhone,
    bookingUrl: `${publicUrl}${apiPath('public', 'schedulers', row.id)}`,
    viewsCount: row.viewsCount,
    bookingsCount: row.bookingsCount,
    conversionRate: conversionRate(row.bookingsCount, row.viewsCount),
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

/** Bookings per view, to 4 decimals; 0 before the first view. */
export function conversionRate(bookings: number, views: number): number {
  return views > 0 ? Math.round((bookings / views) * 10_000) / 10_000 : 0;
}
