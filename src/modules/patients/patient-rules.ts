import { pooledRandomBytes } from '../../common/ids';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { clock } from '../../common/time/clock';

/*
 * The pure rules of a patient record: no database, no HTTP. Unit-tested in patient-rules.spec.ts and
 * shared by the API (through the DTO validators) and the bulk-import worker, so both accept exactly the
 * same input.
 */

export const PATIENT_TYPES = ['prospect', 'patient', 'lead'] as const;
export type PatientType = (typeof PATIENT_TYPES)[number];
export const PATIENT_STATUSES = ['active', 'inactive', 'archived', 'discharged'] as const;
export type PatientStatus = (typeof PATIENT_STATUSES)[number];

// ---------------------------------------------------------------------------------------------------------
// Joining code: read aloud and typed by patients, so no 0/O and no 1/I. 32 symbols = 5 bits, so a random byte
// masked to 5 bits is uniform. 8 symbols give 2^40 codes: at a million patients per tenant a fresh code
// collides with probability ~1e-6, and the unique index plus a retry settles it.
export const JOINING_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const JOINING_CODE_LENGTH = 8;

export function generateJoiningCode(): string {
  const bytes = pooledRandomBytes(JOINING_CODE_LENGTH);
  let code = '';
  for (const byte of bytes) code += JOINING_CODE_ALPHABET[byte & 31];
  return code;
}

// ---------------------------------------------------------------------------------------------------------
// Tags
export const MAX_TAGS = 50;
export const MAX_TAG_LENGTH = 64;

/** Why a tag list is unacceptable, or null. Limits apply after trimming and de-duplication. */
export function tagListProblem(value: unknown): string | null {
  if (!Array.isArray(value)) return 'must be an array of strings';
  if (value.some((t) => typeof t !== 'string')) return 'must be an array of strings';
  const tags = normalizeTags(value as string[]);
  if ((value as string[]).some((t) => t.trim().length === 0)) return 'must not contain empty tags';
  if (tags.some((t) => t.length > MAX_TAG_LENGTH)) return `must contain tags of at most ${MAX_TAG_LENGTH} characters`;
  if (tags.length > MAX_TAGS) return `must contain at most ${MAX_TAGS} distinct tags`;
  return null;
}

/** Trimmed, empty ones dropped, de-duplicated (first occurrence wins, order kept). Case is kept: tags are labels. */
export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const tag of tags) {
    const t = tag.trim();
    if (t) seen.add(t);
  }
  return [...seen];
}

// ---------------------------------------------------------------------------------------------------------
// Phone numbers are stored in E.164. Without a country to assume, only international numbers (+…) parse.

const PARSED_PHONES_KEPT = 512;
const parsedPhones = new Map<string, string | null>();

/**
 * The number in E.164 (`+442079460000`), or null when it is not a valid phone number. A request's phone is
 * checked by the validator and then normalised: the second call answers from a small memo instead of
 * parsing again (libphonenumber-js is a visible share of a create's CPU: bench/README.md, Patients).
 */
export function toE164(value: string): string | null {
  const known = parsedPhones.get(value);
  if (known !== undefined) return known;
  const parsed = parsePhoneNumberFromString(value.trim());
  const e164 = parsed && parsed.isValid() ? parsed.number : null;
  if (parsedPhones.size >= PARSED_PHONES_KEPT) parsedPhones.clear();
  parsedPhones.set(value, e164);
  return e164;
}

// ---------------------------------------------------------------------------------------------------------
// Dates (`YYYY-MM-DD`)
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
export const EARLIEST_BIRTH_DATE = '1900-01-01';

/** True when `value` is `YYYY-MM-DD` naming a day that exists (no 2023-02-30). */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DATE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** Today in UTC as `YYYY-MM-DD`. */
export function todayUtc(now = clock.now()): string {
  return now.toISOString().slice(0, 10);
}

/** Why a birth date is unacceptable, or null: a real calendar day, in the past, not before 1900. */
export function birthDateProblem(value: unknown, now = clock.now()): string | null {
  if (!isCalendarDate(value)) return 'must be a real date in the format YYYY-MM-DD';
  if (value >= todayUtc(now)) return 'must be in the past';
  if (value < EARLIEST_BIRTH_DATE) return `must not be before ${EARLIEST_BIRTH_DATE}`;
  return null;
}

/**
 * The birth-date window for an age range on day `today`: someone is at least `min` years old when born
 * on or before today minus `min` years, and at most `max` years old when born after today minus `max + 1`
 * years. Answers dates as `YYYY-MM-DD` (inclusive bounds).
 */
export function birthDateRangeForAges(today: string, min?: number, max?: number): { bornOnOrBefore?: string; bornAfter?: string } {
  const shift = (years: number): string => {
    const [y, m, d] = today.split('-').map(Number);
    const target = new Date(Date.UTC(y - years, m - 1, d));
    // 29 February minus n years lands on 1 March in non-leap years; the birthday then is 28 February.
    if (target.getUTCMonth() !== m - 1) target.setUTCDate(0);
    return target.toISOString().slice(0, 10);
  };
  return {
    bornOnOrBefore: min !== undefined ? shift(min) : undefined,
    bornAfter: max !== undefined ? shift(max + 1) : undefined,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Custom fields
export const CUSTOM_FIELD_TYPES = ['text', 'number', 'boolean', 'date', 'select'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];
export const MAX_CUSTOM_TEXT_LENGTH = 2000;

export interface CustomFieldDefinition {
  key: string;
  type: CustomFieldType;
  options: string[] | null;
}

/** Why a custom field value does not fit its definition, or null. */
export function customFieldValueProblem(definition: CustomFieldDefinition, value: unknown): string | null {
  switch (definition.type) {
    case 'text':
      if (typeof value !== 'string') return 'must be a string';
      if (value.length > MAX_CUSTOM_TEXT_LENGTH) return `must be at most ${MAX_CUSTOM_TEXT_LENGTH} characters`;
      return null;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be a boolean';
    case 'date':
      return isCalendarDate(value) ? null : 'must be a real date in the format YYYY-MM-DD';
    case 'select':
      return typeof value === 'string' && (definition.options ?? []).includes(value)
        ? null
        : `must be one of: ${(definition.options ?? []).join(', ')}`;
  }
}

export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * Checks a `customFields` object against the tenant's definitions. A `null` value ("no value": removes
 * the key from an existing patient, stores nothing on a new one) fits every defined field.
 */
export function customFieldsProblems(
  values: Record<string, unknown>,
  definitions: ReadonlyMap<string, CustomFieldDefinition>,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [key, value] of Object.entries(values)) {
    const field = `customFields.${key}`;
    const definition = definitions.get(key);
    if (!definition) {
      problems.push({ field, message: 'is not a defined custom field' });
      continue;
    }
    if (value === null) continue;
    const problem = customFieldValueProblem(definition, value);
    if (problem) problems.push({ field, message: problem });
  }
  return problems;
}

/** Applies a customFields patch: keys set to null are removed, others replaced. */
export function mergeCustomFields(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}
