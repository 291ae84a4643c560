import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../common/auth/auth.types';
import { PageRequest } from '../../common/http/pagination';
import { ValidationFailedException } from '../../common/http/problem';
import { SlugTakenException, slugify } from '../../common/slug';
import { violates } from '../../database/database-errors';
import { ProvidersService } from '../scheduling';
import { CreateSchedulerDto, ListSchedulersQueryDto, SchedulerDto, SchedulerListDto, UpdateSchedulerDto } from './dto/scheduler.dto';
import { SchedulerEntity } from './entities/scheduler.entity';
import { SchedulerNotFoundException } from './schedulers.exceptions';
import { SchedulerConstraint, SchedulersRepository, SchedulerValues } from './schedulers.repository';

/** Schedulers (public booking pages) as the tenant's keys manage them. */
@Injectable()
export class SchedulersService {
  constructor(
    private readonly schedulers: SchedulersRepository,
    private readonly providers: ProvidersService,
  ) {}

  async create(auth: AuthContext, dto: CreateSchedulerDto): Promise<SchedulerDto> {
    await this.checkProviders(auth, dto.providerIds);
    const name = dto.name.trim();
    const values: SchedulerValues = {
      name,
      slug: dto.slug ?? slugify(name, 'booking'),
      description: dto.description?.trim() || null,
      providerIds: dto.providerIds.map((id) => id.toLowerCase()),
      duration: dto.duration,
      type: dto.type?.trim() || null,
      isActive: dto.isActive ?? true,
    };
    try {
      return schedulerDto(await this.schedulers.create(auth, values));
    } catch (err) {
      if (violates(err, SchedulerConstraint.Slug)) throw new SlugTakenException('scheduler', values.slug);
      throw err;
    }
  }

  async list(auth: AuthContext, query: ListSchedulersQueryDto, page: PageRequest): Promise<SchedulerListDto> {
    const result = await this.schedulers.list(auth, { isActive: query.isActive }, page);
    return { schedulers: result.items.map(schedulerDto), nextCursor: result.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<SchedulerDto> {
    const row = await this.schedulers.findById(auth, id);
    if (!row) throw new SchedulerNotFoundException();
    return schedulerDto(row);
  }

  async findBySlug(auth: AuthContext, slug: string): Promise<SchedulerDto | null> {
    const row = await this.schedulers.findOne(auth, { slug });
    return row && schedulerDto(row);
  }

  async update(auth: AuthContext, id: string, dto: UpdateSchedulerDto): Promise<SchedulerDto> {
    if (dto.providerIds) await this.checkProviders(auth, dto.providerIds);
    const patch: Partial<SchedulerValues> = {
      name: dto.name?.trim(),
      slug: dto.slug,
      description: dto.description === undefined ? undefined : dto.description?.trim() || null,
      providerIds: dto.providerIds?.map((p) => p.toLowerCase()),
      duration: dto.duration,
      type: dto.type === undefined ? undefined : dto.type?.trim() || null,
      isActive: dto.isActive,
    };
    try {
      const row = await this.schedulers.applyPatch(auth, id, patch);
      if (!row) throw new SchedulerNotFoundException();
      return schedulerDto(row);
    } catch (err) {
      if (violates(err, SchedulerConstraint.Slug)) throw new SlugTakenException('scheduler', dto.slug!);
      throw err;
    }
  }

  /** Every id must name a provider of the caller's tenant and mode: 400 naming `providerIds.<index>` otherwise. */
  private async checkProviders(auth: AuthContext, ids: string[]): Promise<void> {
    const found = new Set((await this.providers.findMany(auth, ids)).map((p) => p.id));
    const errors = ids.flatMap((id, index) =>
      found.has(id.toLowerCase()) ? [] : [{ field: `providerIds.${index}`, message: 'names no provider of this tenant and mode' }],
    );
    if (errors.length) throw new ValidationFailedException(errors);
  }
}

export function schedulerDto(row: SchedulerEntity): SchedulerDto {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    providerIds: row.providerIds,
    duration: row.duration,
    type: row.type,
    isActive: row.isActive,
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
