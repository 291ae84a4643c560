import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { AuthContext } from '../../common/auth/auth.types';
import { entityTag, IfMatch } from '../../common/http/etag';
import { PageRequest } from '../../common/http/pagination';
import { Tagged } from '../../common/http/response-headers';
import { FieldError, ValidationFailedException } from '../../common/http/problem';
import { violates } from '../../database/database-errors';
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
import { PatientConstraint, PatientFilters, PatientPatch, PatientsRepository } from './patients.repository';

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
    // A joining-code collision must not abort the booking's transaction: each attempt runs in a savepoint.
    for (let attempt = 1; ; attempt++) {
      await tx.query('SAVEPOINT new_lead');
      try {
        const created = toDto(await this.patients.create(scope, values, generateJoiningCode(), tx));
        await tx.query('RELEASE SAVEPOINT new_lead');
        await this.events.record(scope, 'patient.created', created, tx);
        return created;
      } catch (err) {
        await tx.query('ROLLBACK TO SAVEPOINT new_lead');
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
        const row = await this.patients.applyPatch(auth, id, await this.toPatch(auth, dto, tx), versions, tx);
        if (!row) return undefined;
        const result = withTag(row);
        await this.events.record(auth, 'patient.updated', result.body, tx);
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
    const result = await this.patients.list(auth, toFilters(query), page);
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
   * Sets `emailOptOut` (an unsubscribe link was followed): one statement, and `patient.updated` when it
   * changed something. Answers false when the patient no longer exists.
   */
  async optOutOfEmail(scope: TenantScope, id: string): Promise<boolean> {
    return this.transactions.run(async (tx) => {
      const current = await this.patients.get(scope, id, tx);
      if (!current) return false;
      if (current.emailOptOut) return true;
      const patch: PatientPatch = { set: { emailOptOut: true }, customFieldsSet: {}, customFieldsRemove: [], customFieldsClear: false };
      const row = await this.patients.applyPatch(scope, id, patch, undefined, tx);
      if (row) await this.events.record(scope, 'patient.updated', toDto(row), tx);
      return true;
    });
  }

  async tags(auth: AuthContext): Promise<TagListDto> {
    return { tags: await this.patients.tagCounts(auth, TAG_LIST_LIMIT) };
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
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
