import { PageRequest } from '../../../common/http/lists/pagination';
import { ScopedStatement } from '../../../database/tenant-scoped.repository';
import type { PatientStatus, PatientType } from '../patient-rules';

/*
 * Patient search and filtered lists: the one place that says how GET /patients finds its page. What a search
 * matches is defined once, in the schema: `search_text`, a generated column of the lower-cased names, email,
 * phone and joining code, and its trigram index IDX_PATIENTS_SEARCH. A term matches a patient when it is a
 * substring of that text once lowered by the same `lower()`. docs/decisions/0009-search-frozen.md says which
 * machinery went and why the rest stays.
 */

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

/**
 * A list's statement; a search's first step also names the statement that answers instead when the first
 * one's rows say `complete` is false.
 */
export interface PatientListStatement extends ScopedStatement {
  fallback?: ScopedStatement;
}

/** The newest patients a search checks first: a term on at least SEARCH_COMMON of them is common. */
const SEARCH_SAMPLE = 2000;
const SEARCH_COMMON = 4;

const likeEscape = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The statement `PatientsRepository.list` runs for these filters and page ($1 tenant, $2 mode, then `params`),
 * selecting `columns`. Its WHERE holds only the filters present, so each combination is planned for itself
 * (docs/decisions/0001-indexes-for-lists-at-scale.md says which index serves which filter).
 *
 * A `search` decides its own way, because the planner cannot tell a common term from a rare one and a wrong
 * guess costs hundreds of milliseconds at a million patients. The first statement counts the term among the
 * newest SEARCH_SAMPLE patients; a term found SEARCH_COMMON times or more walks the page order for three times
 * the rows its share says a page needs (from the page-order index alone, which carries search_text), stopping
 * at a full page, and answers it (`complete`). Short of a page, the fallback asks the trigram index for every
 * match and sorts them: a rare term costs about its matches. A practice smaller than the sample has been read
 * whole by the walk and never needs it.
 */
export function patientListStatement(filters: PatientFilters, page: PageRequest, columns: string): PatientListStatement {
  const params: unknown[] = [];
  const param = (value: unknown): string => {
    params.push(value);
    return `$${params.length + 2}`; // the scope is $1 and $2
  };
  const where: string[] = [];
  const tags = filters.tags?.length ? [...new Set(filters.tags)] : [];
  if (tags.length) where.push(`tags && ${param(tags)}::text[]`);
  if (filters.patientType) where.push(`patient_type = ${param(filters.patientType)}`);
  if (filters.patientStatus) where.push(`patient_status = ${param(filters.patientStatus)}`);
  if (filters.gender !== undefined) where.push(`lower(gender) = lower(${param(filters.gender)})`);
  if (filters.createdFrom) where.push(`created_at >= ${param(filters.createdFrom)}`);
  if (filters.createdTo) where.push(`created_at <= ${param(filters.createdTo)}`);
  if (filters.bornOnOrBefore) where.push(`date_of_birth <= ${param(filters.bornOnOrBefore)}::date`);
  if (filters.bornAfter) where.push(`date_of_birth > ${param(filters.bornAfter)}::date`);
  if (filters.hasEmail !== undefined) where.push(filters.hasEmail ? 'email IS NOT NULL' : 'email IS NULL');
  if (filters.hasPhone !== undefined) where.push(filters.hasPhone ? 'phone IS NOT NULL' : 'phone IS NULL');
  if (filters.email !== undefined) where.push(`lower(email) = lower(${param(filters.email)})`);
  if (filters.externalId !== undefined) where.push(`external_id = ${param(filters.externalId)}`);
  if (filters.updatedSince) where.push(`updated_at >= ${param(filters.updatedSince)}`);
  if (page.after) where.push(`(created_at, id) < (${param(page.after.value)}::timestamptz, ${param(page.after.id)}::uuid)`);
  const limit = param(page.limit + 1);
  const scoped = `FROM patients WHERE tenant_id = $1 AND mode = $2${where.map((w) => ` AND ${w}`).join('')}`;
  const order = 'ORDER BY created_at DESC, id DESC';
  if (filters.search === undefined) return { statement: `SELECT ${columns} ${scoped} ${order} LIMIT ${limit}`, params };

  const term = `lower(${param(`%${likeEscape(filters.search)}%`)})`;
  // A phone-like term also matches by its digits alone.
  const match = filters.searchDigits
    ? `(search_text LIKE ${term} OR search_text LIKE ${param(`%${filters.searchDigits}%`)})`
    : `search_text LIKE ${term}`;
  const n = `${limit}::int`;
  const statement = `WITH sample AS (
      SELECT count(*) AS seen, count(*) FILTER (WHERE ${match}) AS hits
        FROM (SELECT search_text ${scoped} ${order} LIMIT ${SEARCH_SAMPLE}) s),
    walk AS MATERIALIZED (
      SELECT id FROM (SELECT id, created_at, search_text ${scoped} ${order}
          LIMIT (SELECT CASE WHEN seen < ${SEARCH_SAMPLE} THEN seen
                  WHEN hits >= ${SEARCH_COMMON} THEN ceil(3.0 * seen * ${n} / hits)::bigint ELSE 0 END FROM sample)) w
        WHERE ${match} LIMIT ${n}),
    verdict AS (SELECT (SELECT count(*) FROM walk) >= ${n} OR seen < ${SEARCH_SAMPLE} AS complete FROM sample)
    SELECT p.*, v.complete FROM verdict v LEFT JOIN LATERAL (
      SELECT ${columns} FROM patients WHERE tenant_id = $1 AND mode = $2 AND v.complete AND id IN (SELECT id FROM walk)) p ON true
    ORDER BY p."createdAt" DESC, p.id DESC`;
  // Materialised without an order, so that its matches come from the trigram index and are then sorted: not
  // the page-order index, filtered from end to end.
  const fallback = `WITH found AS MATERIALIZED (SELECT ${columns} ${scoped} AND ${match})
    SELECT * FROM found ORDER BY "createdAt" DESC, id DESC LIMIT ${n}`;
  return { statement, params, fallback: { statement: fallback, params } };
}
