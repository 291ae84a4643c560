import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { FieldError } from '../../common/http/errors/problem';
import { flattenValidationErrors } from '../../common/http/errors/validation';
import { CreatePatientDto } from './dto/create-patient.dto';
import type { UpdatePatientDto } from './dto/update-patient.dto';
import { CustomFieldDefinition, customFieldsProblems, normalizeTags, toE164 } from './patient-rules';
import type { PatientPatch, PatientValues } from './patients.repository';

/*
 * The one place where patient input becomes what is stored, for POST, PUT and bulk-import rows alike:
 * strings trimmed (blank optional text is null), phones in E.164, tags trimmed and de-duplicated. An
 * absent field is left alone and `null` clears an optional one. In `customFields` a `null` value means
 * "this key has no value": it removes the key from an existing patient (PUT, or a bulk row that updates
 * one) and is simply not stored on a new one (POST, a bulk row that creates one). Keys must be defined
 * custom fields either way (`customFieldsProblems`).
 */

/** The body's fields, normalised; absent ones stay undefined (a PUT leaves them unchanged). */
export function normalizePatientInput(body: CreatePatientDto | UpdatePatientDto): PatientPatch {
  const set: PatientPatch['set'] = {
    externalId: body.externalId,
    email: optionalText(body.email),
    phone: body.phone === undefined ? undefined : body.phone === null ? null : toE164(body.phone),
    firstName: body.firstName?.trim(),
    lastName: body.lastName?.trim(),
    dateOfBirth: body.dateOfBirth,
    gender: optionalText(body.gender),
    address: optionalText(body.address),
    patientType: body.patientType,
    patientStatus: body.patientStatus,
    tags: body.tags === undefined ? undefined : body.tags === null ? [] : normalizeTags(body.tags),
    emailOptOut: body.emailOptOut,
    smsOptOut: body.smsOptOut,
  };
  const patch: PatientPatch = { set, customFieldsSet: {}, customFieldsRemove: [], customFieldsClear: body.customFields === null };
  for (const [key, value] of Object.entries(body.customFields ?? {})) {
    if (value === null) patch.customFieldsRemove.push(key);
    else patch.customFieldsSet[key] = value;
  }
  return patch;
}

/** A new patient's values from normalised input: the create defaults fill what the input left out. */
export function newPatientValues(input: PatientPatch): PatientValues {
  const { set } = input;
  return {
    externalId: set.externalId ?? null,
    email: set.email ?? null,
    phone: set.phone ?? null,
    firstName: set.firstName!,
    lastName: set.lastName!,
    dateOfBirth: set.dateOfBirth ?? null,
    gender: set.gender ?? null,
    address: set.address ?? null,
    patientType: set.patientType ?? 'prospect',
    patientStatus: set.patientStatus ?? 'active',
    tags: set.tags ?? [],
    customFields: { ...input.customFieldsSet },
    emailOptOut: set.emailOptOut ?? false,
    smsOptOut: set.smsOptOut ?? false,
  };
}

/** The fields a body provided (its `null`s included), which a bulk row that updates a patient overwrites. */
export function providedFields(input: PatientPatch): (keyof PatientValues)[] {
  return (Object.keys(input.set) as (keyof PatientPatch['set'])[]).filter((k) => input.set[k] !== undefined);
}

function optionalText(value: string | null | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  return value?.trim() || null;
}

/** The options of the global ValidationPipe, so a bulk-import row is judged exactly like a POST body. */
const VALIDATION = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true, stopAtFirstError: false } as const;

export type RowCheck = { ok: true; input: PatientPatch } | { ok: false; errors: FieldError[] };

/** Validates one bulk-import row like a POST body (DTO rules, then the tenant's custom fields) and normalises it. */
export async function checkCreateRow(row: unknown, definitions: ReadonlyMap<string, CustomFieldDefinition>): Promise<RowCheck> {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) {
    return { ok: false, errors: [{ field: 'row', message: 'must be a JSON object' }] };
  }
  const dto = plainToInstance(CreatePatientDto, row);
  const errors = flattenValidationErrors(await validate(dto, VALIDATION));
  if (!errors.length && dto.customFields) errors.push(...customFieldsProblems(dto.customFields, definitions));
  if (errors.length) return { ok: false, errors };
  return { ok: true, input: normalizePatientInput(dto) };
}
