import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { PageRequest } from '../../common/http/lists/pagination';
import { clock } from '../../common/time/clock';
import { TenantScope } from '../../database/tenant-owned.entity';
import { prepared } from '../../database/sql';
import { keysetPage, Page, ScopedStatement, TenantEntityRepository } from '../../database/tenant-scoped.repository';
import { PatientEntity } from './entities/patient.entity';
import type { PatientStatus, PatientType } from './patient-rules';
import { PatientFilters, patientListStatement } from './search/patient-search';

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
  smsOptOut: boolean;
}

/** A PUT: the columns to set (absent: unchanged) and the customFields keys to set and to remove. */
export interface PatientPatch {
  set: Partial<Omit<PatientValues, 'customFields'>>;
  customFieldsSet: Record<string, unknown>;
  customFieldsRemove: string[];
  /** `customFields: null`: remove every key before applying the rest. */
  customFieldsClear: boolean;
}

/**
 * One bulk-import row: its values as a new patient (`values`, defaults filled in) and, for a row that
 * updates an existing patient, the fields it provided (the rest keep their value) and its custom-field
 * keys to remove.
 */
export interface ImportRow {
  index: number;
  id: string;
  joiningCode: string;
  values: PatientValues;
  provided: (keyof PatientValues)[];
  customFieldsRemove: string[];
  customFieldsClear: boolean;
}

/** The constraints whose violations the patients module answers with its own exceptions. */
export const PatientConstraint = {
  ExternalId: 'UQ_PATIENTS_TENANT_MODE_EXTERNAL_ID',
  JoiningCode: 'UQ_PATIENTS_TENANT_JOINING_CODE',
  EncounterAppointment: 'UQ_PATIENT_ENCOUNTERS_APPOINTMENT',
  CustomFieldKey: 'UQ_PATIENT_CUSTOM_FIELDS_TENANT_MODE_KEY',
} as const;

/**
 * Every writable column of a patient, the one table that the select list, the INSERT, the PUT's SET and
 * the bulk upsert are built from: a new column is one entry here (the type makes PatientValues and this
 * table agree). `read` is the select expression when it is not the column itself.
 */
const WRITABLE: { readonly [F in keyof PatientValues]: { column: string; type: string; read?: string } } = {
  externalId: { column: 'external_id', type: 'text' },
  email: { column: 'email', type: 'text' },
  phone: { column: 'phone', type: 'text' },
  firstName: { column: 'first_name', type: 'text' },
  lastName: { column: 'last_name', type: 'text' },
  // Read as text: a date never shifted by a timezone.
  dateOfBirth: { column: 'date_of_birth', type: 'date', read: 'date_of_birth::text' },
  gender: { column: 'gender', type: 'text' },
  address: { column: 'address', type: 'text' },
  patientType: { column: 'patient_type', type: 'text' },
  patientStatus: { column: 'patient_status', type: 'text' },
  tags: { column: 'tags', type: 'text[]' },
  customFields: { column: 'custom_fields', type: 'jsonb' },
  emailOptOut: { column: 'email_opt_out', type: 'boolean' },
  smsOptOut: { column: 'sms_opt_out', type: 'boolean' },
};
const FIELDS = Object.keys(WRITABLE) as (keyof PatientValues)[];
const column = (field: keyof PatientValues): string => WRITABLE[field].column;
/** A value as a statement parameter (jsonb goes as JSON text; pg would send an array as a PostgreSQL array). */
const asParam = (field: keyof PatientValues, value: unknown): unknown => (WRITABLE[field].type === 'jsonb' ? JSON.stringify(value) : value);

/** The select list of raw queries: camelCase names as the entity has them. */
const COLUMNS = [
  'id',
  'tenant_id AS "tenantId"',
  'mode',
  'joining_code AS "joiningCode"',
  ...FIELDS.map((f) => `${WRITABLE[f].read ?? column(f)} AS "${f}"`),
  'version',
  'created_at AS "createdAt"',
  'updated_at AS "updatedAt"',
].join(', ');

/** INSERT of one patient: $1 tenant, $2 mode, $3 id, $4 joining code, then FIELDS in order, then the time. */
const INSERT_PATIENT =
  prepared(`INSERT INTO patients (tenant_id, mode, id, joining_code, ${FIELDS.map(column).join(', ')}, version, created_at, updated_at)
  VALUES ($1, $2, $3, $4, ${FIELDS.map((_, i) => `$${i + 5}`).join(', ')}, 1, $${FIELDS.length + 5}, $${FIELDS.length + 5})`);

/**
 * The bulk upsert (see upsertBatch): $3 the rows as a JSON array, $4 the time. A row that names an
 * existing patient (by externalId) keeps the fields it did not provide; its customFields merge per key
 * (`src` computes it; the conflict's update takes it as is unless another writer inserted the patient
 * meanwhile, when the ids differ and the row's keys merge into that patient's).
 */
const UPSERT_PATIENTS = (() => {
  const merged = (f: keyof PatientValues): string =>
    `CASE WHEN p.id IS NULL OR '${f}' = ANY(r.provided) THEN r.${column(f)} ELSE p.${column(f)} END AS ${column(f)}`;
  const updatable = FIELDS.filter((f) => f !== 'externalId' && f !== 'customFields');
  return `WITH r AS (
      SELECT * FROM jsonb_to_recordset($3::jsonb) AS r(id uuid, joining_code text,
        ${FIELDS.map((f) => `${column(f)} ${WRITABLE[f].type}`).join(', ')},
        provided text[], custom_fields_remove text[], custom_fields_clear boolean)
    ), src AS (
      SELECT coalesce(p.id, r.id) AS id, coalesce(p.joining_code, r.joining_code) AS joining_code, r.external_id,
             ${updatable.map(merged).join(',\n             ')},
             (CASE WHEN r.custom_fields_clear THEN '{}'::jsonb ELSE coalesce(p.custom_fields, '{}'::jsonb) END || r.custom_fields)
               - r.custom_fields_remove AS custom_fields,
             coalesce(p.created_at, $4::timestamptz) AS created_at
        FROM r LEFT JOIN patients p ON p.tenant_id = $1 AND p.mode = $2 AND p.external_id = r.external_id
    )
    INSERT INTO patients AS t (tenant_id, mode, id, joining_code, ${FIELDS.map(column).join(', ')}, version, created_at, updated_at)
    SELECT $1, $2, id, joining_code, ${FIELDS.map(column).join(', ')}, 1, created_at, $4::timestamptz
      FROM src
    ON CONFLICT (tenant_id, mode, external_id) WHERE external_id IS NOT NULL DO UPDATE SET
      ${updatable.map((f) => `${column(f)} = EXCLUDED.${column(f)}`).join(', ')},
      custom_fields = CASE WHEN t.id = EXCLUDED.id THEN EXCLUDED.custom_fields ELSE t.custom_fields || EXCLUDED.custom_fields END, version = t.version + 1, updated_at = EXCLUDED.updated_at
    RETURNING ${COLUMNS}, (xmax = 0) AS inserted`;
})();

const GET_PATIENT = prepared(`SELECT ${COLUMNS} FROM patients WHERE tenant_id = $1 AND mode = $2 AND id = $3`);
const GET_PATIENT_LOCKED = prepared(`${GET_PATIENT} FOR UPDATE`);
const GET_PATIENTS_BY_ID = prepared(`SELECT ${COLUMNS} FROM patients WHERE tenant_id = $1 AND mode = $2 AND id = ANY($3::uuid[])`);
const GET_PATIENTS_BY_EXTERNAL_ID = `SELECT ${COLUMNS} FROM patients WHERE tenant_id = $1 AND mode = $2 AND external_id = ANY($3::text[])`;

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
    const rows = await this.sql<PatientEntity[]>(scope, GET_PATIENT, [id], tx);
    return rows[0] ?? null;
  }

  /** The patient, its row locked until `tx` ends (the state a change is compared with). */
  async getLocked(scope: TenantScope, id: string, tx: EntityManager): Promise<PatientEntity | null> {
    const rows = await this.sql<PatientEntity[]>(scope, GET_PATIENT_LOCKED, [id], tx);
    return rows[0] ?? null;
  }

  /**
   * Live patients with this E.164 number, in every tenant: whom an inbound STOP or START from it may
   * concern (the provider's callback names a number, never a tenant). The caller narrows them to the
   * tenants that send from the number that received it, and changes each through its own scope.
   */
  async livePatientsByPhone(phone: string): Promise<{ tenantId: string; id: string }[]> {
    return this.unscopedSql(
      `SELECT tenant_id AS "tenantId", id FROM patients WHERE phone = $1 AND phone IS NOT NULL AND mode = 'live' ORDER BY tenant_id, created_at, id`,
      [phone],
    );
  }

  /** The patients of these ids in the scope (ids of none are left out): the patients a page of appointments embeds. */
  getMany(scope: TenantScope, ids: readonly string[], tx?: EntityManager): Promise<PatientEntity[]> {
    return ids.length ? this.sql<PatientEntity[]>(scope, GET_PATIENTS_BY_ID, [ids], tx) : Promise.resolve([]);
  }

  async exists(scope: TenantScope, id: string, tx?: EntityManager): Promise<boolean> {
    const rows = await this.sql<unknown[]>(scope, `SELECT 1 FROM patients WHERE tenant_id = $1 AND mode = $2 AND id = $3`, [id], tx);
    return rows.length > 0;
  }

  /**
   * Serialises, until the transaction ends, everyone finding or creating a patient by this email in the
   * scope (a transaction-level advisory lock on the scope and the lower-cased email): of two concurrent
   * public bookings with one email, the second finds the lead the first created.
   */
  async lockEmail(scope: TenantScope, email: string, tx: EntityManager): Promise<void> {
    await this.sql(
      scope,
      `SELECT pg_advisory_xact_lock(hashtextextended(concat_ws(':', $1::text, $2::text, lower($3::text)), 0))`,
      [email],
      tx,
    );
  }

  /** The oldest patient with this email (case-insensitive), or null. */
  async oldestByEmail(scope: TenantScope, email: string, tx?: EntityManager): Promise<PatientEntity | null> {
    const rows = await this.sql<PatientEntity[]>(
      scope,
      `SELECT ${COLUMNS} FROM patients WHERE tenant_id = $1 AND mode = $2 AND email IS NOT NULL AND lower(email) = lower($3)
        ORDER BY created_at, id LIMIT 1`,
      [email],
      tx,
    );
    return rows[0] ?? null;
  }

  /** Inserts a new patient (without an event); a unique violation (externalId, joining code) surfaces as a QueryFailedError. */
  async create(scope: TenantScope, values: PatientValues, joiningCode: string, tx?: EntityManager): Promise<PatientEntity> {
    const { row, insert } = this.insertion(scope, values, joiningCode);
    await this.sql(scope, insert.statement, insert.params, tx);
    return row;
  }

  /**
   * A new patient's row and the INSERT that writes it (run by the caller, with its event); a unique
   * violation (externalId, joining code) surfaces as a QueryFailedError.
   */
  insertion(scope: TenantScope, values: PatientValues, joiningCode: string): { row: PatientEntity; insert: ScopedStatement } {
    const row = this.build(scope, { ...values, joiningCode, version: 1 });
    return {
      row,
      insert: { statement: INSERT_PATIENT, params: [row.id, joiningCode, ...FIELDS.map((f) => asParam(f, values[f])), row.createdAt] },
    };
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
    for (const [field, value] of Object.entries(patch.set) as [keyof PatientPatch['set'], unknown][]) {
      if (value !== undefined) sets.push(`${column(field)} = ${param(asParam(field, value))}`);
    }
    const base = patch.customFieldsClear ? `'{}'::jsonb` : 'custom_fields';
    if (patch.customFieldsClear || Object.keys(patch.customFieldsSet).length || patch.customFieldsRemove.length) {
      sets.push(
        `custom_fields = (${base} || ${param(JSON.stringify(patch.customFieldsSet))}::jsonb) - ${param(patch.customFieldsRemove)}::text[]`,
      );
    }
    sets.push('version = version + 1', `updated_at = ${param(clock.now())}`);
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

  /**
   * One page of patients, newest first, narrowed by the filters (see patientListStatement in
   * search/patient-search.ts). Raw statements, rows as they come (no entity hydration).
   */
  async list(scope: TenantScope, filters: PatientFilters, page: PageRequest, tx?: EntityManager): Promise<Page<PatientEntity>> {
    const { statement, params, fallback } = patientListStatement(filters, page, COLUMNS);
    let rows = await this.sql<PatientEntity[]>(scope, statement, params, tx);
    if (fallback) {
      // The first step answers one row at least, each with the verdict (a row of nulls when nothing matched).
      const first = rows as (PatientEntity & { complete: boolean })[];
      rows = first[0].complete
        ? first.filter((row) => row.id !== null).map(({ complete: _, ...row }) => row)
        : await this.sql<PatientEntity[]>(scope, fallback.statement, fallback.params, tx);
    }
    return keysetPage(rows, page, (row) => row.createdAt);
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
    await this.unscopedSql('ANALYZE patients').catch(() => undefined);
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
   * Answers the rows as written, inserted and updated apart (their events are recorded in the same
   * transaction).
   */
  async upsertBatch(
    scope: TenantScope,
    rows: ImportRow[],
    tx?: EntityManager,
  ): Promise<{ created: PatientEntity[]; updated: { before?: PatientEntity; after: PatientEntity }[] }> {
    if (!rows.length) return { created: [], updated: [] };
    // The patients the batch will update, locked until the transaction ends, for their events' `previous`.
    const externalIds = rows.map((r) => r.values.externalId).filter((id): id is string => typeof id === 'string');
    const existing = externalIds.length
      ? await this.sql<PatientEntity[]>(scope, `${GET_PATIENTS_BY_EXTERNAL_ID} FOR UPDATE`, [externalIds], tx)
      : [];
    const before = new Map(existing.map((p) => [p.id, p]));
    const input = rows.map((r) => {
      const row: Record<string, unknown> = {
        id: r.id,
        joining_code: r.joiningCode,
        provided: r.provided,
        custom_fields_remove: r.customFieldsRemove,
        custom_fields_clear: r.customFieldsClear,
      };
      for (const f of FIELDS) row[column(f)] = r.values[f];
      return row;
    });
    const result = await this.sql<(PatientEntity & { inserted: boolean })[]>(
      scope,
      UPSERT_PATIENTS,
      [JSON.stringify(input), clock.now()],
      tx,
    );
    const written = result.map(({ inserted, ...row }) => ({ inserted, row }));
    return {
      created: written.filter((w) => w.inserted).map((w) => w.row),
      updated: written.filter((w) => !w.inserted).map((w) => ({ before: before.get(w.row.id), after: w.row })),
    };
  }
}
