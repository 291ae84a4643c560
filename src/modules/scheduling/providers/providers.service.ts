import { Injectable } from '@nestjs/common';
import { AuthContext } from '../../../common/auth/auth.types';
import { PageRequest } from '../../../common/http/lists/pagination';
import { FieldError, ValidationFailedException } from '../../../common/http/errors/problem';
import { clock } from '../../../common/time/clock';
import { ReadReplicas } from '../../../database/read-replicas';
import { TenantScope } from '../../../database/tenant-owned.entity';
import { CreateProviderDto, ProviderDto, ProviderListDto, UpdateProviderDto } from './dto/provider.dto';
import { CreateTimeOffDto, TimeOffDto, TimeOffListDto } from './dto/time-off.dto';
import { ProviderEntity } from './entities/provider.entity';
import { TimeOffEntity } from './entities/time-off.entity';
import { definedOnly } from '../defined-only';
import { ProvidersRepository } from './providers.repository';
import { ProviderNotFoundException, TimeOffNotFoundException } from '../scheduling.exceptions';
import { WorkingInterval, workingHoursProblems } from '../availability/slots';
import { TimeOffRepository } from './time-off.repository';
import { Transactions } from '../../../database/transactions';
import { TimeFreed } from '../waitlist/time-freed';

@Injectable()
export class ProvidersService {
  constructor(
    private readonly providers: ProvidersRepository,
    private readonly timeOff: TimeOffRepository,
    private readonly transactions: Transactions,
    private readonly freed: TimeFreed,
    private readonly replicas: ReadReplicas,
  ) {}

  async create(auth: AuthContext, dto: CreateProviderDto): Promise<ProviderDto> {
    const workingHours = checkedWorkingHours(dto.workingHours);
    const row = await this.providers.insert(auth, {
      name: dto.name.trim(),
      email: dto.email?.trim() || null,
      timezone: dto.timezone,
      workingHours,
      isActive: dto.isActive ?? true,
    });
    return providerDto(row);
  }

  async list(auth: AuthContext, filters: { isActive?: boolean }, page: PageRequest): Promise<ProviderListDto> {
    const result = await this.replicas.read((db) => this.providers.list(auth, filters, page, db));
    return { providers: result.items.map(providerDto), nextCursor: result.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<ProviderDto> {
    return providerDto(await this.require(auth, id));
  }

  /** The provider entity, or 404; for the other scheduling services. */
  async require(auth: AuthContext, id: string): Promise<ProviderEntity> {
    const row = await this.providers.findById(auth, id);
    if (!row) throw new ProviderNotFoundException();
    return row;
  }

  /** The providers with these ids in the scope (unknown ids left out), in the order given. */
  findMany(scope: TenantScope, ids: string[]): Promise<ProviderEntity[]> {
    return this.providers.byIds(scope, ids);
  }

  /** Every id must name a provider of the scope: 400 naming `<field>.<index>` otherwise. */
  async checkIds(scope: TenantScope, ids: string[], field = 'providerIds'): Promise<void> {
    const errors = await this.unknownIds(scope, ids, field);
    if (errors.length) throw new ValidationFailedException(errors);
  }

  /** A field error `<field>.<index>` for each id that names no provider of the scope. */
  async unknownIds(scope: TenantScope, ids: string[], field = 'providerIds'): Promise<FieldError[]> {
    if (!ids.length) return [];
    const found = new Set((await this.providers.byIds(scope, ids)).map((p) => p.id));
    return ids.flatMap((id, index) =>
      found.has(id.toLowerCase()) ? [] : [{ field: `${field}.${index}`, message: 'names no provider of this tenant and mode' }],
    );
  }

  async update(auth: AuthContext, id: string, dto: UpdateProviderDto): Promise<ProviderDto> {
    const workingHours = dto.workingHours && checkedWorkingHours(dto.workingHours);
    const patch = definedOnly({
      name: dto.name?.trim(),
      email: dto.email === undefined ? undefined : dto.email?.trim() || null,
      timezone: dto.timezone,
      workingHours,
      isActive: dto.isActive,
      updatedAt: clock.now(),
    });
    const changed = await this.providers.update(auth, { id }, patch);
    if (!changed) throw new ProviderNotFoundException();
    return this.get(auth, id);
  }

  async addTimeOff(auth: AuthContext, providerId: string, dto: CreateTimeOffDto): Promise<TimeOffDto> {
    const start = new Date(dto.start);
    const end = new Date(dto.end);
    if (end <= start) throw new ValidationFailedException([{ field: 'end', message: 'must be after start' }]);
    await this.require(auth, providerId);
    const row = await this.timeOff.insert(auth, { providerId, startAt: start, endAt: end, reason: dto.reason?.trim() || null });
    return timeOffDto(row);
  }

  async listTimeOff(auth: AuthContext, providerId: string, page: PageRequest): Promise<TimeOffListDto> {
    await this.require(auth, providerId);
    const result = await this.replicas.read((db) => this.timeOff.ofProvider(auth, providerId, page, db));
    return { timeOff: result.items.map(timeOffDto), nextCursor: result.nextCursor };
  }

  /** Removing time off frees its span, which may go to the waitlist (recorded with the removal). */
  async removeTimeOff(auth: AuthContext, providerId: string, timeOffId: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const row = await this.timeOff.findOne(auth, { id: timeOffId, providerId }, tx);
      if (!row || !(await this.timeOff.delete(auth, { id: timeOffId, providerId }, tx))) throw new TimeOffNotFoundException();
      await this.freed.record(auth, { providerId, from: row.startAt, to: row.endAt }, tx);
    });
  }
}

function checkedWorkingHours(hours: WorkingInterval[]): WorkingInterval[] {
  const problems = workingHoursProblems(hours);
  if (problems.length) throw new ValidationFailedException(problems);
  // Stored in a canonical order so that reads compare equal whatever order they were sent in.
  return hours
    .map((h) => ({ weekday: h.weekday, start: h.start, end: h.end }))
    .sort((a, b) => a.weekday - b.weekday || a.start.localeCompare(b.start));
}

export function providerDto(row: ProviderEntity): ProviderDto {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    timezone: row.timezone,
    workingHours: row.workingHours,
    isActive: row.isActive,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

function timeOffDto(row: TimeOffEntity): TimeOffDto {
  return {
    id: row.id,
    providerId: row.providerId,
    start: row.startAt.toISOString(),
    end: row.endAt.toISOString(),
    reason: row.reason,
    createdAt: row.createdAt.toISOString(),
  };
}
