import { Injectable } from '@nestjs/common';
import { uuidv7 } from '../../common/ids';
import { EntityManager } from 'typeorm';
import type { AuthContext } from '../../common/auth/auth.types';
import { eventDataFor } from '../../common/auth/patient-visibility';
import { PageRequest } from '../../common/http/lists/pagination';
import { ResourceNotFoundProblem } from '../../common/http/errors/problem';
import { timeRange } from '../../common/http/lists/time-range';
import { clock } from '../../common/time/clock';
import { ReadReplicas } from '../../database/read-replicas';
import { TenantScope } from '../../database/tenant-owned.entity';
import { ScopedStatement } from '../../database/tenant-scoped.repository';
import { EventDto, EventListDto, ListEventsQueryDto } from './dto/event.dto';
import { EventEntity } from './entities/event.entity';
import { AnyEventType, EventType } from './event-types';
import { EventsRepository } from './events.repository';

/**
 * The events outbox. A module records an event inside the transaction of the change it reports, so the
 * event commits with the change or not at all:
 *
 *   await this.events.record(auth, 'patient.created', patientDto, tx);
 *
 * or, for a change that is one statement, in that statement (`recordWith`, under Transactions.runOne).
 *
 * A worker's relay later turns committed events into webhook deliveries (webhooks module).
 */
@Injectable()
export class EventsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly replicas: ReadReplicas,
  ) {}

  /** Records one event in `tx`; answers its id. `payload` is the resource as the API returns it. */
  async record(scope: TenantScope, type: EventType, payload: object, tx: EntityManager): Promise<string> {
    const [id] = await this.recordMany(scope, type, [payload], tx);
    return id;
  }

  /**
   * Runs `write` (see the repository's insertWith) and records the event in the same statement: the
   * change and its event in one round trip, atomic without a transaction (Transactions.runOne).
   */
  async recordWith(
    scope: TenantScope,
    type: EventType,
    payload: object,
    write: ScopedStatement,
    tx: EntityManager | undefined,
  ): Promise<string> {
    const event = { id: uuidv7(), type, payload, createdAt: clock.now() };
    await this.events.insertWith(scope, write, event, tx);
    return event.id;
  }

  /** Records one event per payload, in one statement (bulk writes). */
  async recordMany(scope: TenantScope, type: EventType, payloads: object[], tx: EntityManager): Promise<string[]> {
    return this.insert(scope, type, payloads, false, tx);
  }

  /** An event that is delivered by hand rather than fanned out by the relay (webhook tests). */
  async recordUndispatchable(scope: TenantScope, type: AnyEventType, payload: object, tx: EntityManager): Promise<string> {
    const [id] = await this.insert(scope, type, [payload], true, tx);
    return id;
  }

  /** GET /events: each event's data as the key may see it (eventDataFor). */
  async list(auth: AuthContext, query: ListEventsQueryDto, page: PageRequest): Promise<EventListDto> {
    const result = await this.replicas.read((db) => this.events.list(auth, { type: query.type, ...timeRange(query) }, page, db));
    return { events: result.items.map((event) => this.eventFor(auth, toEventDto(event))), nextCursor: result.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<EventDto> {
    const event = await this.events.findById(auth, id);
    if (!event) throw new ResourceNotFoundProblem('The event');
    return this.eventFor(auth, toEventDto(event));
  }

  private eventFor(auth: AuthContext, event: EventDto): EventDto {
    return event.data && typeof event.data === 'object' ? { ...event, data: eventDataFor(auth, event.type, event.data) } : event;
  }

  async find(scope: TenantScope, id: string): Promise<EventEntity | null> {
    return this.events.findById(scope, id);
  }

  private async insert(scope: TenantScope, type: string, payloads: object[], dispatched: boolean, tx: EntityManager): Promise<string[]> {
    const createdAt = clock.now();
    const rows = payloads.map((payload) => ({ id: uuidv7(), type, payload, createdAt }));
    await this.events.insertMany(scope, rows, dispatched, tx);
    return rows.map((r) => r.id);
  }
}

export function toEventDto(event: EventEntity): EventDto {
  return { id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.payload };
}
