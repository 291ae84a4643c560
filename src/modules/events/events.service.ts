import { Injectable } from '@nestjs/common';
import { uuidv7 } from '../../common/ids';
import { EntityManager } from 'typeorm';
import type { AuthContext } from '../../common/auth/auth.types';
import { PageRequest } from '../../common/http/pagination';
import { NotFoundException } from '../../common/http/problem';
import { timeRange } from '../../common/http/time-range';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { ScopedStatement } from '../../database/tenant-scoped.repository';
import { EventDto, EventListDto, ListEventsQueryDto } from './dto/event.dto';
import { EventEntity } from './entities/event.entity';
import { AnyEventType, EventType } from './event-types';
import { EventsRepository } from './events.repository';
import type { PatientSummaryDto } from '../patients/dto/patient.dto';
import { patientFor } from '../patients/patient-summary';

/**
 * The events outbox. A module records an event inside the transaction of the change it reports, so the
 * event commits with the change or not at all:
 *
 *   await this.events.record(tx, auth, 'patient.created', patientDto);
 *
 * or, for a change that is one statement, in that statement (`recordWith`, under Transactions.runOne).
 *
 * A worker's relay later turns committed events into webhook deliveries (webhooks module).
 */
@Injectable()
export class EventsService {
  constructor(private readonly events: EventsRepository) {}

  /** Records one event in `tx`; answers its id. `payload` is the resource as the API returns it. */
  async record(tx: EntityManager, scope: TenantScope, type: EventType, payload: object): Promise<string> {
    const [id] = await this.recordMany(tx, scope, type, [payload]);
    return id;
  }

  /**
   * Runs `write` (see the repository's insertWith) and records the event in the same statement: the
   * change and its event in one round trip, atomic without a transaction (Transactions.runOne).
   */
  async recordWith(
    tx: EntityManager | undefined,
    scope: TenantScope,
    type: EventType,
    payload: object,
    write: ScopedStatement,
  ): Promise<string> {
    const event = { id: uuidv7(), type, payload, createdAt: clock.now() };
    await this.events.insertWith(scope, write, event, tx);
    return event.id;
  }

  /** Records one event per payload, in one statement (bulk writes). */
  async recordMany(tx: EntityManager, scope: TenantScope, type: EventType, payloads: object[]): Promise<string[]> {
    return this.insert(tx, scope, type, payloads, false);
  }

  /** An event that is delivered by hand rather than fanned out by the relay (webhook tests). */
  async recordUndispatchable(tx: EntityManager, scope: TenantScope, type: AnyEventType, payload: object): Promise<string> {
    const [id] = await this.insert(tx, scope, type, [payload], true);
    return id;
  }

  /** GET /events: each event's data as the key may see it (eventFor). */
  async list(auth: AuthContext, query: ListEventsQueryDto, page: PageRequest): Promise<EventListDto> {
    const result = await this.events.list(auth, { type: query.type, ...timeRange(query) }, page);
    return { events: result.items.map((event) => eventFor(auth, toEventDto(event))), nextCursor: result.nextCursor };
  }

  async get(auth: AuthContext, id: string): Promise<EventDto> {
    const event = await this.events.findById(auth, id);
    if (!event) throw new NotFoundException('The event');
    return eventFor(auth, toEventDto(event));
  }

  async find(scope: TenantScope, id: string): Promise<EventEntity | null> {
    return this.events.findById(scope, id);
  }

  private async insert(tx: EntityManager, scope: TenantScope, type: string, payloads: object[], dispatched: boolean): Promise<string[]> {
    const createdAt = clock.now();
    const rows = payloads.map((payload) => ({ id: uuidv7(), type, payload, createdAt }));
    await this.events.insertMany(tx, scope, rows, dispatched);
    return rows.map((r) => r.id);
  }
}

const PATIENT_EVENTS: readonly string[] = ['patient.created', 'patient.updated'];

/**
 * An event as `auth` reads it through the API: a key without `patients:read` sees the patient of a
 * patient event, and the patient embedded in any other (an appointment's), as its summary. Deliveries to
 * webhook endpoints, which an OWNER or ADMIN set up, carry the event as recorded.
 */
function eventFor(auth: AuthContext, event: EventDto): EventDto {
  const data = event.data;
  if (!data || typeof data !== 'object') return event;
  if (PATIENT_EVENTS.includes(event.type)) {
    return { ...event, data: { ...patientFor(auth, data as unknown as PatientSummaryDto) } };
  }
  const patient = data.patient as PatientSummaryDto | null | undefined;
  if (patient && typeof patient === 'object') return { ...event, data: { ...data, patient: patientFor(auth, patient) } };
  return event;
}

export function toEventDto(event: EventEntity): EventDto {
  return { id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.payload };
}
