import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../common/auth/auth.types';
import { entityTag, IfMatch } from '../../common/http/responses/etag';
import { PageRequest } from '../../common/http/lists/pagination';
import { Tagged } from '../../common/http/responses/response-headers';
import { FieldError, ValidationFailedException } from '../../common/http/errors/problem';
import { violates } from '../../database/database-errors';
import { ReadReplicas } from '../../database/read-replicas';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Transactions } from '../../database/transactions';
import { EventsService } from '../events';
import { CustomFieldsService } from './custom-fields.service';
import { CreatePatientDto } from './dto/create-patient.dto';
import { ListPatientsQueryDto } from './dto/list-patients.dto';
import { PatientDto, PatientListDto, TagListDto } from './dto/patient.dto';
import { UpdatePatientDto } from './dto/update-patient.dto';
import { PatientEntity } from './entities/patient.entity';
import { newPatientValues, normalizePatientInput } from './patient-input';
import { birthDateRangeForAges, customFieldsProblems, generateJoiningCode, todayUtc } from './patient-rules';
import {
  ExternalIdTakenException,
  noSuchPatient,
  PatientNotFoundException,
  PatientPreconditionFailedException,
} from './patients.exceptions';
import { PatientConstraint, PatientPatch, PatientsRepository } from './patients.repository';
import { PatientFilters } from './search/patient-search';

/** The consent flags; each decides every send of its channel. */
export interface PatientConsent {
  emailOptOut?: boolean;
  smsOptOut?: boolean;
}

export interface ConsentChange {
  patient: PatientDto;
  changed: boolean;
}

/** `patient.updated`'s payload: the patient, and in `previous` the members the change replaced (their values before). */
export type PatientUpdatedEvent = PatientDto & { previous: Partial<PatientDto> };

/** What a public booking knows of its patient. */
export interface LeadInput {
  firstName: string;
  lastName: string;
  email: string;
  phone?: string;
}

/** A patient and its current ETag (sent as a header by the controller's @WithETag()). */
export type PatientWithTag = Tagged<PatientDto>;

const JOINING_CODE_ATTEMPTS = 5;
const TAG_LIST_LIMIT = 1000;
const PHONE_LIKE = /^[\d\s()+.-]+$/;

@Injectable()
export class PatientsService {
  constructor(
    private readonly patients: PatientsRepository,
    private readonly customFields: CustomFieldsService,
    private readonly transactions: Transactions,
    private readonly events: EventsService,
    private readonly replicas: ReadReplicas,
  ) {}

  async create(auth: AuthContext, dto: CreatePatientDto): Promise<PatientWithTag> {
    const values = newPatientValues(normalizePatientInput(dto));
    // A fresh joining code collides about once in a million creates at a million patients; retry then.
    for (let attempt = 1; ; attempt++) {
      try {
        // Custom fields are checked against the definitions first (a read; READ COMMITTED gave no more
        // inside the transaction); the patient and its event are then one statement, one round trip.
        await this.checkCustomFields(auth, dto.customFields);
        return await this.transactions.runOne(async (tx) => {
          const { row, insert } = this.patients.insertion(auth, values, generateJoiningCode());
          const created = withTag(row);
          await this.events.recordWith(auth, 'patient.created', created.body, insert, tx);
          return created;
        });
      } catch (err) {
        if (violates(err, PatientConstraint.ExternalId)) throw new ExternalIdTakenException();
        if (!violates(err, PatientConstraint.JoiningCode) || attempt >= JOINING_CODE_ATTEMPTS) throw err;
      }
    }
  }

  /**
   * The patient a public booking is for, in the booking's transaction: the oldest with this email in the
   * scope, else a new `lead` (patient.created recorded with it). Concurrent calls with one email take
   * turns on an advisory lock, so they create one lead. An existing patient is returned as it is: a
   * request without a key never changes a patient's record.
   */
  async findOrCreateLead(scope: TenantScope, lead: LeadInput, tx: EntityManager): Promise<PatientDto> {
    await this.patients.lockEmail(scope, lead.email, tx);
    const existing = await this.patients.oldestByEmail(scope, lead.email, tx);
    if (existing) return toDto(existing);
    const values = newPatientValues(normalizePatientInput({ ...lead, patientType: 'lead' }));
    // A joining-code collision must not abort the booking's transaction: each attempt is a step of its own.
    for (let attempt = 1; ; attempt++) {
      try {
        const created = toDto(await this.transactions.step(tx, (step) => this.patients.create(scope, values, generateJoiningCode(), step)));
        await this.events.record(scope, 'patient.created', created, tx);
        return created;
      } catch (err) {
        if (!violates(err, PatientConstraint.JoiningCode) || attempt >= JOINING_CODE_ATTEMPTS) throw err;
      }
    }
  }

  async get(auth: AuthContext, id: string): Promise<PatientWithTag> {
    const row = await this.patients.get(auth, id);
    if (!row) throw new PatientNotFoundException();
    return withTag(row);
  }

  /**
   * Merges the body into the patient (see UpdatePatientDto). With If-Match, the version check is part of
   * the UPDATE itself, so of two writers holding the same ETag only one succeeds; the other gets 412.
   */
  async update(auth: AuthContext, id: string, dto: UpdatePatientDto, ifMatch?: IfMatch): Promise<PatientWithTag> {
    const versions = ifMatch && !ifMatch.any ? ifMatch.versions : undefined;
    try {
      const updated = await this.transactions.run(async (tx) => {
        const patch = await this.toPatch(auth, dto, tx);
        // Locked first, so that `previous` is what this update replaced.
        const before = await this.patients.getLocked(auth, id, tx);
        if (!before) return undefined;
        const row = await this.patients.applyPatch(auth, id, patch, versions, tx);
        if (!row) return undefined;
        const result = withTag(row);
        await this.events.record(auth, 'patient.updated', updatedEvent(toDto(before), result.body), tx);
        return result;
      });
      if (updated) return updated;
    } catch (err) {
      if (violates(err, PatientConstraint.ExternalId)) throw new ExternalIdTakenException();
      throw err;
    }
    // Nothing matched: either there is no such patient (404) or its version is not the one named (412).
    if (versions && (await this.patients.exists(auth, id))) throw new PatientPreconditionFailedException();
    throw new PatientNotFoundException();
  }

  async list(auth: AuthContext, query: ListPatientsQueryDto, page: PageRequest): Promise<PatientListDto> {
    const result = await this.replicas.read((db) => this.patients.list(auth, toFilters(query), page, db));
    return { patients: result.items.map(toDto), nextCursor: result.nextCursor };
  }

  /** The patient, or null when the scope's tenant and mode have no such patient. */
  async find(scope: TenantScope, id: string, tx?: EntityManager): Promise<PatientDto | null> {
    const row = await this.patients.get(scope, id, tx);
    return row && toDto(row);
  }

  /** The patients of these ids, by id; an id of no patient of the scope's tenant and mode has no entry. */
  async findMany(scope: TenantScope, ids: readonly string[], tx?: EntityManager): Promise<Map<string, PatientDto>> {
    const rows = await this.patients.getMany(scope, [...new Set(ids)], tx);
    return new Map(rows.map((row) => [row.id, toDto(row)]));
  }

  /**
   * The patient a request body's `field` names, or a 400 naming that field: an id of another tenant or
   * mode names nothing here.
   */
  async requireReference(scope: TenantScope, id: string, field: string): Promise<PatientDto> {
    const patient = await this.find(scope, id);
    if (!patient) throw new ValidationFailedException([noSuchPatient(field)]);
    return patient;
  }

  /**
   * Changes the patient's consent without a key (an unsubscribe link, a STOP or START reply): the flags
   * given are set under the row's lock, and a change is `patient.updated` with the `previous` values, as
   * a PUT's is. Answers the patient and whether anything changed; null when the patient no longer exists.
   * Inside the caller's `tx` when given, else in a transaction of its own.
   */
  async setConsent(scope: TenantScope, id: string, consent: PatientConsent, tx?: EntityManager): Promise<ConsentChange | null> {
    const run = async (t: EntityManager): Promise<ConsentChange | null> => {
      const current = await this.patients.getLocked(scope, id, t);
      if (!current) return null;
      const set = Object.fromEntries(Object.entries(consent).filter(([key, value]) => current[key as keyof PatientConsent] !== value));
      if (!Object.keys(set).length) return { patient: toDto(current), changed: false };
      const patch: PatientPatch = { set, customFieldsSet: {}, customFieldsRemove: [], customFieldsClear: false };
      const row = (await this.patients.applyPatch(scope, id, patch, undefined, t))!;
      const patient = toDto(row);
      await this.events.record(scope, 'patient.updated', updatedEvent(toDto(current), patient), t);
      return { patient, changed: true };
    };
    return tx ? run(tx) : this.transactions.run(run);
  }

  /** Live patients with this number in any tenant (see PatientsRepository.livePatientsByPhone). */
  livePatientsByPhone(phone: string): Promise<{ tenantId: string; id: string }[]> {
    return this.patients.livePatientsByPhone(phone);
  }

  async tags(auth: AuthContext): Promise<TagListDto> {
    return { tags: await this.replicas.read((db) => this.patients.tagCounts(auth, TAG_LIST_LIMIT, db)) };
  }

  private async toPatch(auth: AuthContext, dto: UpdatePatientDto, tx: EntityManager): Promise<PatientPatch> {
    await this.checkCustomFields(auth, dto.customFields, tx);
    return normalizePatientInput(dto);
  }

  private async checkCustomFields(
    auth: AuthContext,
    values: Record<string, unknown> | null | undefined,
    tx?: EntityManager,
  ): Promise<void> {
    if (!values || !Object.keys(values).length) return; // the common case costs no query
    const problems: FieldError[] = customFieldsProblems(values, await this.customFields.definitions(auth, tx));
    if (problems.length) throw new ValidationFailedException(problems);
  }
}

function toFilters(query: ListPatientsQueryDto): PatientFilters {
  const errors: FieldError[] = [];
  if (query.ageMin !== undefined && query.ageMax !== undefined && query.ageMin > query.ageMax) {
    errors.push({ field: 'ageMin', message: 'must not be greater than ageMax' });
  }
  const createdFrom = query.dateFrom ? new Date(query.dateFrom) : undefined;
  // A bare date as the upper bound means the whole of that day.
  const createdTo = query.dateTo
    ? new Date(/^\d{4}-\d{2}-\d{2}$/.test(query.dateTo) ? `${query.dateTo}T23:59:59.999Z` : query.dateTo)
    : undefined;
  if (createdFrom && createdTo && createdFrom > createdTo) errors.push({ field: 'dateFrom', message: 'must not be after dateTo' });
  if (errors.length) throw new ValidationFailedException(errors);
  const ages = birthDateRangeForAges(todayUtc(), query.ageMin, query.ageMax);
  const search = query.search?.trim();
  const digits = search && PHONE_LIKE.test(search) ? search.replace(/\D/g, '') : '';
  return {
    search: search || undefined,
    searchDigits: digits.length >= 3 && digits !== search ? digits : undefined,
    tags: query.tags,
    patientType: query.patientType,
    patientStatus: query.patientStatus,
    gender: query.gender,
    createdFrom,
    createdTo,
    bornOnOrBefore: ages.bornOnOrBefore,
    bornAfter: ages.bornAfter,
    hasEmail: query.hasEmail,
    hasPhone: query.hasPhone,
    email: query.email,
    externalId: query.externalId,
    updatedSince: query.updatedSince ? new Date(query.updatedSince) : undefined,
  };
}

/** `patient.updated`'s payload for a change from `before` to `after`; without `before` (a row another writer inserted meanwhile), `previous` is empty. */
export function updatedEvent(before: PatientDto | undefined, after: PatientDto): PatientUpdatedEvent {
  if (!before) return { ...after, previous: {} };
  const previous: Partial<Record<keyof PatientDto, unknown>> = {};
  for (const key of Object.keys(after) as (keyof PatientDto)[]) {
    if (key !== 'updatedAt' && JSON.stringify(before[key]) !== JSON.stringify(after[key])) previous[key] = before[key];
  }
  return { ...after, previous: previous as Partial<PatientDto> };
}

function withTag(row: PatientEntity): PatientWithTag {
  return { body: toDto(row), etag: entityTag(row.id, row.version) };
}

export function toDto(row: PatientEntity): PatientDto {
  return {
    id: row.id,
    externalId: row.externalId,
    joiningCode: row.joiningCode,
    email: row.email,
    phone: row.phone,
    firstName: row.firstName,
    lastName: row.lastName,
    dateOfBirth: row.dateOfBirth,
    gender: row.gender,
    address: row.address,
    patientType: row.patientType,
    patientStatus: row.patientStatus,
    tags: row.tags,
    customFields: row.customFields,
    emailOptOut: row.emailOptOut,
    smsOptOut: row.smsOptOut,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
