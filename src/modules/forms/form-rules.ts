import { isEmail } from 'class-validator';
import { isCalendarDate, toE164 } from '../patients';

/*
 * The pure rules of forms: field definitions and submitted values (slugs: common/slug.ts). No database, no HTTP;
 * unit-tested in form-rules.spec.ts. Email, phone and date answers follow the patient rules, so a value a
 * patient record accepts is accepted here too (and phones are stored in E.164 alike).
 */

export const FIELD_TYPES = ['text', 'textarea', 'email', 'phone', 'number', 'date', 'select', 'multiselect', 'checkbox'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const OPTION_TYPES: readonly FieldType[] = ['select', 'multiselect'];
/** The types whose answers may be capped with `maxLength`, and their caps when it is absent. */
export const TEXT_LIMITS: Partial<Record<FieldType, number>> = { text: 2000, textarea: 20000 };

export const MAX_FIELDS = 200;
export const MAX_OPTIONS = 500;
export const FIELD_ID = /^[a-z0-9_]{1,64}$/;

/** The types answered with a string, where a blank one means no answer. */
const STRING_TYPES: readonly FieldType[] = ['text', 'textarea', 'email', 'phone', 'date', 'select'];

const MAX_EMAIL_LENGTH = 320;
const MAX_PHONE_LENGTH = 40;

/** One field of a form version, as stored and returned. Absent optional members are omitted. */
export interface FieldDefinition {
  id: string;
  label: string;
  type: FieldType;
  required: boolean;
  options?: string[];
  placeholder?: string;
  helpText?: string;
  min?: number;
  max?: number;
  maxLength?: number;
}

export interface FieldProblem {
  field: string;
  message: string;
}

// ---------------------------------------------------------------------------------------------------------
// Definitions: what class-validator cannot say about one field alone or about the list.

/**
 * Cross-member rules of a field list (each field's own shape is checked by the DTO): ids unique in the
 * form, options only and always for select types, min/max only for numbers and in order, maxLength only
 * for text types and within their cap. Paths are `fields.<index>.<member>`.
 */
export function fieldDefinitionProblems(fields: readonly FieldDefinition[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const at = (member: string, message: string): number => problems.push({ field: `fields.${i}.${member}`, message });
    if (seen.has(f.id)) at('id', 'must be unique in the form');
    seen.add(f.id);
    if (OPTION_TYPES.includes(f.type)) {
      if (f.options === undefined) at('options', `is required for ${f.type} fields`);
    } else if (f.options !== undefined) {
      at('options', 'is only allowed for select and multiselect fields');
    }
    if (f.type !== 'number') {
      if (f.min !== undefined) at('min', 'is only allowed for number fields');
      if (f.max !== undefined) at('max', 'is only allowed for number fields');
    } else if (f.min !== undefined && f.max !== undefined && f.min > f.max) {
      at('min', 'must not be greater than max');
    }
    const cap = TEXT_LIMITS[f.type];
    if (f.maxLength !== undefined) {
      if (cap === undefined) at('maxLength', 'is only allowed for text and textarea fields');
      else if (f.maxLength > cap) at('maxLength', `must not be greater than ${cap} for ${f.type} fields`);
    }
  });
  return problems;
}

/** A field as stored: trimmed texts, `required` explicit, absent members left out (stable JSON). */
export function normalizeField(f: FieldDefinition): FieldDefinition {
  const out: FieldDefinition = { id: f.id, label: f.label.trim(), type: f.type, required: f.required ?? false };
  if (f.options !== undefined) out.options = f.options;
  if (f.placeholder !== undefined) out.placeholder = f.placeholder;
  if (f.helpText !== undefined) out.helpText = f.helpText;
  if (f.min !== undefined) out.min = f.min;
  if (f.max !== undefined) out.max = f.max;
  if (f.maxLength !== undefined) out.maxLength = f.maxLength;
  return out;
}

/** True when two field lists define the same form (a PATCH repeating the current fields makes no version). */
export function sameFields(a: readonly FieldDefinition[], b: readonly FieldDefinition[]): boolean {
  return JSON.stringify(a.map(normalizeField)) === JSON.stringify(b.map(normalizeField));
}

// ---------------------------------------------------------------------------------------------------------
// Submissions

export interface CheckedSubmission {
  /** The answers to store: normalised (trimmed text, E.164 phones), empty optional answers left out. */
  values: Record<string, unknown>;
  problems: FieldProblem[];
}

/** No answer: absent or null, a blank string for a string-typed field, an empty list for a multiselect. */
function isEmpty(field: FieldDefinition, value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return STRING_TYPES.includes(field.type) && value.trim() === '';
  return field.type === 'multiselect' && Array.isArray(value) && value.length === 0;
}

/** Unknown answer keys named one by one; the rest are counted in one problem. */
const MAX_UNKNOWN_REPORTED = 50;

const hasNul = (s: string): boolean => s.includes('\u0000');

/** The normalised answer, or why the value does not fit the field. Called only for non-empty values. */
export function answer(field: FieldDefinition, value: unknown): { value: unknown } | { problem: string } {
  const problem = (message: string) => ({ problem: message });
  switch (field.type) {
    case 'text':
    case 'textarea': {
      if (typeof value !== 'string') return problem('must be a string');
      if (hasNul(value)) return problem('must not contain NUL characters');
      const text = value.trim();
      const limit = field.maxLength ?? TEXT_LIMITS[field.type]!;
      return text.length > limit ? problem(`must be at most ${limit} characters`) : { value: text };
    }
    case 'email': {
      if (typeof value !== 'string') return problem('must be a string');
      const email = value.trim();
      return email.length <= MAX_EMAIL_LENGTH && isEmail(email) ? { value: email } : problem('must be an email address');
    }
    case 'phone': {
      if (typeof value !== 'string') return problem('must be a string');
      const e164 = value.length <= MAX_PHONE_LENGTH ? toE164(value) : null;
      return e164 ? { value: e164 } : problem('must be a valid phone number in international format, e.g. +442079460000');
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return problem('must be a number');
      if (field.min !== undefined && value < field.min) return problem(`must not be less than ${field.min}`);
      if (field.max !== undefined && value > field.max) return problem(`must not be greater than ${field.max}`);
      return { value };
    }
    case 'date':
      return isCalendarDate(value) ? { value } : problem('must be a real date in the format YYYY-MM-DD');
    case 'select':
      return typeof value === 'string' && field.options!.includes(value) ? { value } : problem(`must be one of the field's options`);
    case 'multiselect': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return problem('must be an array of strings');
      const chosen = value as string[];
      if (chosen.some((v) => !field.options!.includes(v))) return problem(`must contain only the field's options`);
      if (new Set(chosen).size !== chosen.length) return problem('must not repeat an option');
      return { value: chosen };
    }
    case 'checkbox':
      return typeof value === 'boolean' ? { value } : problem('must be a boolean');
  }
}

/**
 * Checks submitted answers against a form version's fields: every answer must name a field and fit it,
 * every required field must be answered (a required checkbox must be checked: it is a consent). Each
 * problem is reported once, as `fields.<fieldId>`.
 */
export function checkSubmission(fields: readonly FieldDefinition[], submitted: Record<string, unknown>): CheckedSubmission {
  const problems: FieldProblem[] = [];
  const values: Record<string, unknown> = {};
  const byId = new Map(fields.map((f) => [f.id, f]));
  const unknown = Object.keys(submitted).filter((id) => !byId.has(id));
  for (const id of unknown.slice(0, MAX_UNKNOWN_REPORTED)) {
    // A key longer than any field id is cut, so a hostile key cannot blow up the answer.
    const name = id.length > 64 ? `${id.slice(0, 64)}…` : id;
    problems.push({ field: `fields.${name}`, message: 'is not a field of this form' });
  }
  if (unknown.length > MAX_UNKNOWN_REPORTED) {
    problems.push({ field: 'fields', message: `names ${unknown.length - MAX_UNKNOWN_REPORTED} more fields that this form does not have` });
  }
  for (const field of fields) {
    const path = `fields.${field.id}`;
    const raw = Object.hasOwn(submitted, field.id) ? submitted[field.id] : undefined;
    if (isEmpty(field, raw)) {
      if (field.required) problems.push({ field: path, message: 'is required' });
      continue;
    }
    const result = answer(field, raw);
    if ('problem' in result) {
      problems.push({ field: path, message: result.problem });
    } else if (field.required && field.type === 'checkbox' && result.value !== true) {
      problems.push({ field: path, message: 'must be checked' });
    } else {
      values[field.id] = result.value;
    }
  }
  return { values, problems };
}
