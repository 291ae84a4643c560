import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { FieldError } from '../../common/http/problem';
import { flattenValidationErrors } from '../../common/http/validation';
import { CreatePatientDto } from './dto/create-patient.dto';
import { CustomFieldDefinition, customFieldsProblems, normalizeTags, toE164 } from './patient-rules';
import type { PatientValues } from './patients.repository';

/** The options of the global ValidationPipe, so a bulk-import row is judged exactly like a POST body. */
const VALIDATION = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true, stopAtFirstError: false } as const;

const trimmed = (s: string | undefined | null): string | null => {
  const t = s?.trim();
  return t ? t : null;
};

/** A validated create body as stored: trimmed, E.164 phone, de-duplicated tags, defaults applied. */
export function toPatientValues(dto: CreatePatientDto): PatientValues {
  return {
    externalId: dto.externalId ?? null,
    email: trimmed(dto.email),
    phone: dto.phone ? toE164(dto.phone) : null,
    firstName: dto.firstName.trim(),
    lastName: dto.lastName.trim(),
    dateOfBirth: dto.dateOfBirth ?? null,
    gender: trimmed(dto.gender),
    address: trimmed(dto.address),
    patientType: dto.patientType ?? 'prospect',
    patientStatus: dto.patientStatus ?? 'active',
    tags: dto.tags ? normalizeTags(dto.tags) : [],
    customFields: dto.customFields ?? {},
    emailOptOut: dto.emailOptOut ?? false,
  };
}

export type RowCheck = { ok: true; dto: CreatePatientDto; provided: string[] } | { ok: false; errors: FieldError[] };

/** Validates one bulk-import row with the create DTO's rules and the tenant's custom field definitions. */
export async function checkCreateRow(row: unknown, definitions: ReadonlyMap<string, CustomFieldDefinition>): Promise<RowCheck> {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) {
    return { ok: false, errors: [{ field: 'row', message: 'must be a JSON object' }] };
  }
  const dto = plainToInstance(CreatePatientDto, row);
  const errors = flattenValidationErrors(await validate(dto, VALIDATION));
  if (!errors.length && dto.customFields) errors.push(...customFieldsProblems(dto.customFields, definitions, false));
  if (errors.length) return { ok: false, errors };
  const provided = Object.keys(row).filter((k) => (row as Record<string, unknown>)[k] !== undefined);
  return { ok: true, dto, provided };
}
