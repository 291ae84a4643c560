import { getCountries } from 'libphonenumber-js/max';
import { FieldError } from '../../common/http/errors/problem';

/** Practice settings members the API shows but does not take: operators assign them. */
const ASSIGNED_BY_OPERATORS: Record<string, string> = {
  smsFromNumber: 'is assigned by an operator (node dist/cli.js sms-numbers:assign), not through the API',
};

/** The most countries `smsCountries` names. */
export const MAX_SMS_COUNTRIES = 50;
const COUNTRY_CODES: ReadonlySet<string> = new Set<string>(getCountries());

/**
 * The practice settings the API reads, checked when written (every other key is the tenant's own, any JSON):
 * `smsCountries`, the countries whose numbers the practice may text, ISO 3166-1 alpha-2 codes in upper case as
 * libphonenumber-js knows them, one to 50 of them (`null` deletes it: the country of the sending number again).
 */
export function practiceSettingsErrors(set: Record<string, unknown>, deleted: string[]): FieldError[] {
  const errors = [...Object.keys(set), ...deleted]
    .filter((key) => Object.hasOwn(ASSIGNED_BY_OPERATORS, key))
    .map((field) => ({ field, message: ASSIGNED_BY_OPERATORS[field] }));
  if (Object.hasOwn(set, 'smsCountries')) {
    const message = smsCountriesError(set.smsCountries);
    if (message) errors.push({ field: 'smsCountries', message });
  }
  return errors;
}

function smsCountriesError(value: unknown): string | null {
  if (!Array.isArray(value))
    return 'must be a list of ISO 3166-1 alpha-2 country codes (["US", "GB"]), or null for the country of the sending number';
  if (value.length === 0) return 'must name at least one country (null: the country of the sending number)';
  if (value.length > MAX_SMS_COUNTRIES) return `names at most ${MAX_SMS_COUNTRIES} countries`;
  const unknown: unknown = (value as unknown[]).find((code) => typeof code !== 'string' || !COUNTRY_CODES.has(code));
  if (unknown !== undefined)
    return `has ${JSON.stringify(unknown)?.slice(0, 20)}, which is no ISO 3166-1 alpha-2 country code in upper case`;
  return null;
}

/** The stored `smsCountries` as written (validated then), or null when the practice has none. */
export function smsCountriesOf(data: Record<string, unknown>): string[] | null {
  const value = data.smsCountries;
  return Array.isArray(value) && value.length && value.every((code): code is string => typeof code === 'string') ? value : null;
}
