import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/pagination';
import { TenantScope } from '../../database/tenant-owned.entity';
import { Page, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { PatientEntity } from './entities/patient.entity';
import type { PatientStatus, PatientType } from './patient-rules';

/** The writable columns of a patient, normalised (E.164 phone, trimmed tags …). */
export interface PatientValues {
  externalId: string | null;
  email: string | null;
  phone: string | null;
  firstName: string;
  lastName: string;
  dateOfBirth: string | null;
  gender: string | null;
  address: string | null;
  patientType: PatientType;
  patientStatus: PatientStatus;
  tags: string[];
  customFields: Record<string, unknown>;
  emailOptOut: boolean;
}

/** A PUT: the columns to set (absent: unchanged) and the customFields keys to set and to remove. */
export interface PatientPatch {
  set: Partial<Omit<PatientValues, 'customFields'>>;
  customFieldsSet: Record<string, unknown>;
  customFieldsRemove: string[];
  /** `customFields: null`: remove every key before applying the rest. */
  customFieldsClear: boolean;
}

/** One bulk-import row: the values and which of them the row provided (the rest keep their value on update). */
export interface ImportRow {
  index: number;
  id: string;
  joiningCode: string;
  values: PatientValues;
  provided: string[];
}

export interface PatientFilters {
  search?: string;
  /** Digits of a phone-like search term, matched against the E.164 number. */
  searchDigits?: string;
  tags?: string[];
  patientType?: PatientType;
  patientStatus?: PatientStatus;
  gender?: string;
  createdFrom?: Date;
  createdTo?: Date;
  bornOnOrBefore?: string;
  bornAfter?: string;
  hasEmail?: boolean;
  hasPhone?: boolean;
  email?: string;
  externalId?: string;
  updatedSince?: Date;
}

/** The constraints whose violations the patients module answers with its own exceptions. */
export const PatientConstraint = {
  ExternalId: 'UQ_PATIENTS_TENANT_MODE_EXTERNAL_ID',
  JoiningCode: 'UQ_PATIENTS_TENANT_JOINING_CODE',
  EncounterAppointment: 'UQ_PATIENT_ENCOUNTERS_APPOINTMENT',
  CustomFieldKey: 'UQ_PATIENT_CUSTOM_FIELDS_TENANT_MODE_KEY',
} as const;

/** The select list of raw queries: camelCase names as the entity has them; dates as text (no timezone shift). */
const COLUMNS = `id, tenant_id AS "tenantId", mode, external_id AS "externalId", joining_code AS "joiningCode", email, phone,
  first_name AS "firstName", last_name AS "lastName", date_of_birth::text AS "dateOfBirth", gender, address,
  patient_type AS "patientType", patient_status AS "patientStatus", tags, custom_fields AS "customFields",
  email_opt_out AS "emailOptOut", version, created_at AS "createdAt", updated_at AS "updatedAt"`;

const COLUMN_OF: Record<keyof Omit<PatientValues, 'customFields'>, string> = {
  externalId: 'external_id',
  email: 'email',
  phone: 'phone',
  firstName: 'first_name',
  lastName: 'last_name',
  dateOfBirth: 'date_of_birth',
  gender: 'gender',
  address: 'address',
  patientType: 'patient_type',
  patientStatus: 'patient_status',
  tags: 'tags',
  emailOptOut: 'email_opt_out',
};

const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Patients of one tenant and mode. The hot paths (one patient, create, update) are single hand-written
 * statements that name tenant_id and mode first; lists go through the scoped query builder.
 */
@Injectable()
export class PatientsRepository extends TenantEntityRepository<PatientEntity> {
  constructor(@InjectRepository(PatientEntity) repository: Repository<PatientEntity>) {
    super(repository);
  }

  async get(scope: TenantScope, id: string, tx?: EntityManager): Promise<PatientEntity | null> {
    const rows = await this.sql<PatientEntity[]>(
      scope,
      `SELECT ${COLUMNS} FROM patients WHERE tenant_id = $1 AND mode = $2 AND id = $3`,
      [id],
      tx,
    );
    return rows[0] ?? null;
  }

  async exists(scope: TenantScope, id: string, tx?: EntityManager): Promise<boolean> {
    const rows = await this.sql<unknown[]>(scope, `SELECT 1 FROM patients WHERE tenant_id = $1 AND mode = $2 AND id = $3`, [id], tx);
    return rows.length > 0;
  }

  /** Inserts a new patient; a unique violation (externalId, joining code) surfaces as a QueryFailedError. */
  async create(scope: TenantScope, values: PatientValues, joiningCode: string, tx?: EntityManager): Promise<PatientEntity> {
    const row = this.build(scope, { ...values, joiningCode, version: 1 });
    await this.sql(
      scope,
      `INSERT INTO patients (id, tenant_id, mode, external_id, joining_code, email, phone, first_name, last_name, date_of_birth,
         gender, address, patient_type, patient_status, tags, custom_fields, email_opt_out, version, created_at, updated_at)
       VALUES ($3, $1, $2, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, 1, $18, $18)`,
      [
        row.id,
        values.externalId,
        joiningCode,
        values.email,
        values.phone,
        values.firstName,
        values.lastName,
        values.dateOfBirth,
        values.gender,
        values.address,
        values.patientType,
        values.patientStatus,
        values.tags,
        JSON.stringify(values.customFields),
        values.emailOptOut,
        row.createdAt,
      ],
      tx,
    );
    return row;
  }

  /**
   * Applies a patch in one statement and answers the new row; null when no row matched (unknown id, or a
   * version not in `versions`). With `versions`, the compare and the update are one atomic step: of two
   * writers holding the same ETag, exactly one wins. customFields keys merge inside the statement, so
   * concurrent updates of different keys keep both.
   */
  async applyPatch(
    scope: TenantScope,
    id: string,
    patch: PatientPatch,
    versions?: number[],
    tx?: EntityManager,
  ): Promise<PatientEntity | null> {
    const params: unknown[] = [id]; // $3; the scope is $1 and $2
    const param = (value: unknown): string => {
      params.push(value);
      return `$${params.length + 2}`;
    };
    const sets: string[] = [];
    for (const [key, value] of Object.entries(patch.set) as [keyof typeof COLUMN_OF, unknown][]) {
      if (value !== undefined) sets.push(`${COLUMN_OF[key]} = ${param(value)}`);
    }
    const base = patch.customFieldsClear ? `'{}'::jsonb` : 'custom_fields';
    if (patch.customFieldsClear || Object.keys(patch.customFieldsSet).length || patch.customFieldsRemove.length) {
      sets.push(
        `custom_fields = (${base} || ${param(JSON.stringify(patch.customFieldsSet))}::jsonb) - ${param(patch.customFieldsRemove)}::text[]`,
      );
    }
    sets.push('version = version + 1', `updated_at = ${param(new Date())}`);
    const versionCheck = versions ? ` AND version = ANY(${param(versions)}::int[])` : '';
    const rows = await this.sql<[PatientEntity[], number]>(
      scope,
      `UPDATE patients SET ${sets.join(', ')}
        WHERE tenant_id = $1 AND mode = $2 AND id = $3${versionCheck}
        RETURNING ${COLUMNS}`,
      params,
      tx,
    );
    return rows[0][0] ?? null;
  }

  /** One page of patients, newest first, narrowed by the filters (each served by an index; see the migration). */
  list(scope: TenantScope, filters: PatientFilters, page: PageRequest, tx?: EntityManager): Promise<Page<PatientEntity>> {
    const q = this.query(scope, 'p', tx);
    if (filters.search !== undefined) {
      const term = `%${likeEscape(filters.search.toLowerCase())}%`;
      if (filters.searchDigits) {
        q.andWhere('(p.search_text LIKE :term OR p.search_text LIKE :digits)', { term, digits: `%${filters.searchDigits}%` });
      } else {
        q.andWhere('p.search_text LIKE :term', { term });
      }
    }
    if (filters.tags?.length) q.andWhere('p.tags && :tags::text[]', { tags: filters.tags });
    if (filters.patientType) q.andWhere('p.patient_type = :patientType', { patientType: filters.patientType });
    if (filters.patientStatus) q.andWhere('p.patient_status = :patientStatus', { patientStatus: filters.patientStatus });
    if (filters.gender !== undefined) q.andWhere('lower(p.gender) = lower(:gender)', { gender: filters.gender });
    if (filters.createdFrom) q.andWhere('p.created_at >= :createdFrom', { createdFrom: filters.createdFrom });
    if (filters.createdTo) q.andWhere('p.created_at <= :createdTo', { createdTo: filters.createdTo });
    if (filters.bornOnOrBefore) q.andWhere('p.date_of_birth <= :bornOnOrBefore', { bornOnOrBefore: filters.bornOnOrBefore });
    if (filters.bornAfter) q.andWhere('p.date_of_birth > :bornAfter', { bornAfter: filters.bornAfter });
    if (filters.hasEmail !== undefined) q.andWhere(filters.hasEmail ? 'p.email IS NOT NULL' : 'p.email IS NULL');
    if (filters.hasPhone !== undefined) q.andWhere(filters.hasPhone ? 'p.phone IS NOT NULL' : 'p.phone IS NULL');
    if (filters.email !== undefined) q.andWhere('lower(p.email) = lower(:email)', { email: filters.email });
    if (filters.externalId !== undefined) q.andWhere('p.external_id = :externalId', { externalId: filters.externalId });
    if (filters.updatedSince) q.andWhere('p.updated_at >= :updatedSince', { updatedSince: filters.updatedSince });
    return this.paginate(q, page);
  }

  /** Tag counts from the trigger-maintained table: a few hundred rows, not a scan of every patient. */
  async tagCounts(scope: TenantScope, limit: number, tx?: EntityManager): Promise<{ name: string; count: number }[]> {
    const rows = await this.sql<{ name: string; count: string }[]>(
      scope,
      `SELECT tag AS name, sum(count) AS count FROM patient_tag_counts
        WHERE tenant_id = $1 AND mode = $2
        GROUP BY tag HAVING sum(count) > 0
        ORDER BY 2 DESC, tag ASC LIMIT $3`,
      [limit],
      tx,
    );
    return rows.map((r) => ({ name: r.name, count: Number(r.count) }));
  }

  /** Refreshes the planner's statistics of the patients table (after a bulk import); best effort. */
  async refreshStatistics(): Promise<void> {
    await this.repository.query('ANALYZE patients').catch(() => undefined);
  }

  /** The ids of the scope's patients with these externalIds (a dry run's created/updated split). */
  async existingExternalIds(scope: TenantScope, externalIds: string[], tx?: EntityManager): Promise<Set<string>> {
    if (!externalIds.length) return new Set();
    const rows = await this.sql<{ external_id: string }[]>(
      scope,
      `SELECT external_id FROM patients WHERE tenant_id = $1 AND mode = $2 AND external_id = ANY($3::text[])`,
      [externalIds],
      tx,
    );
    return new Set(rows.map((r) => r.external_id));
  }

  /**
   * Writes a batch of import rows in one statement. A row whose externalId names an existing patient of
   * the scope updates it, keeping the fields the row does not provide (the merge is computed against the
   * current row in `src`); other rows are inserted. Answers how many rows were inserted and updated.
   * In the rare race where another writer inserts the same externalId between the read in `src` and the
   * insert, ON CONFLICT still turns the row into an update, with the row's values.
   */
  async upsertBatch(scope: TenantScope, rows: ImportRow[], tx?: EntityManager): Promise<{ created: number; updated: number }> {
    if (!rows.length) return { created: 0, updated: 0 };
    const input = rows.map((r) => ({
      id: r.id,
      joining_code: r.joiningCode,
      external_id: r.values.externalId,
      email: r.values.email,
      phone: r.values.phone,
      first_name: r.values.firstName,
      last_name: r.values.lastName,
      date_of_birth: r.values.dateOfBirth,
      gender: r.values.gender,
      address: r.values.address,
      patient_type: r.values.patientType,
      patient_status: r.values.patientStatus,
      tags: r.values.tags,
      custom_fields: r.values.customFields,
      email_opt_out: r.values.emailOptOut,
      provided: r.provided,
    }));
    const keep = (field: string, column: string): string => `CASE WHEN '${field}' = ANY(r.provided) THEN r.${column} ELSE p.${column} END`;
    const result = await this.sql<{ inserted: boolean }[]>(
      scope,
      `WITH r AS (
         SELECT * FROM jsonb_to_recordset($3::jsonb) AS r(
           id uuid, joining_code text, external_id text, email text, phone text, first_name text, last_name text,
           date_of_birth date, gender text, address text, patient_type text, patient_status text, tags text[],
           custom_fields jsonb, email_opt_out boolean, provided text[])
       ), src AS (
         SELECT coalesce(p.id, r.id) AS id, coalesce(p.joining_code, r.joining_code) AS joining_code, r.external_id,
                ${keep('email', 'email')} AS email,
                ${keep('phone', 'phone')} AS phone,
                ${keep('firstName', 'first_name')} AS first_name,
                ${keep('lastName', 'last_name')} AS last_name,
                ${keep('dateOfBirth', 'date_of_birth')} AS date_of_birth,
                ${keep('gender', 'gender')} AS gender,
                ${keep('address', 'address')} AS address,
                coalesce(${keep('patientType', 'patient_type')}, 'prospect') AS patient_type,
                coalesce(${keep('patientStatus', 'patient_status')}, 'active') AS patient_status,
                coalesce(${keep('tags', 'tags')}, '{}') AS tags,
                coalesce(p.custom_fields, '{}'::jsonb) || coalesce(r.custom_fields, '{}'::jsonb) AS custom_fields,
                coalesce(${keep('emailOptOut', 'email_opt_out')}, false) AS email_opt_out,
                coalesce(p.created_at, $4::timestamptz) AS created_at
           FROM r LEFT JOIN patients p ON p.tenant_id = $1 AND p.mode = $2 AND p.external_id = r.external_id
       )
       INSERT INTO patients AS t (id, tenant_id, mode, external_id, joining_code, email, phone, first_name, last_name, date_of_birth,
         gender, address, patient_type, patient_status, tags, custom_fields, email_opt_out, version, created_at, updated_at)
       SELECT id, $1, $2, external_id, joining_code, email, phone, first_name, last_name, date_of_birth, gender, address,
              patient_type, patient_status, tags, custom_fields, email_opt_out, 1, created_at, $4::timestamptz
         FROM src
       ON CONFLICT (tenant_id, mode, external_id) WHERE external_id IS NOT NULL DO UPDATE SET
         email = EXCLUDED.email, phone = EXCLUDED.phone, first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name,
         date_of_birth = EXCLUDED.date_of_birth, gender = EXCLUDED.gender, address = EXCLUDED.address,
         patient_type = EXCLUDED.patient_type, patient_status = EXCLUDED.patient_status, tags = EXCLUDED.tags,
         custom_fields = t.custom_fields || EXCLUDED.custom_fields, email_opt_out = EXCLUDED.email_opt_out,
         version = t.version + 1, updated_at = EXCLUDED.updated_at
       RETURNING (xmax = 0) AS inserted`,
      [JSON.stringify(input), new Date()],
      tx,
    );
    const created = result.filter((r) => r.inserted).length;
    return { created, updated: result.length - created };
  }
}
