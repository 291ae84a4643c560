import { IANAZone } from 'luxon';
import { ValidateBy, ValidationOptions } from 'class-validator';

// IANA names are capitalised segments (America/New_York, Etc/GMT+5, EST5EDT); the runtime also accepts
// other spellings (america/new_york, utc), which would then be stored in many forms.
const IANA_NAME = /^([A-Z][A-Za-z0-9_+-]*)(\/[A-Z][A-Za-z0-9_+-]*)*$/;

/**
 * Whether the runtime's time zone database (ICU, through Luxon) knows this IANA name, canonical or
 * alias (Asia/Kolkata is an alias of Asia/Calcutta in ICU, and is what people send).
 */
export function isIanaTimeZone(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 64 && IANA_NAME.test(value) && IANAZone.isValidZone(value);
}

export function IsIanaTimeZone(options?: ValidationOptions): PropertyDecorator {
  const message = 'must be an IANA time zone such as America/New_York';
  return ValidateBy({ name: 'isIanaTimeZone', validator: { validate: isIanaTimeZone, defaultMessage: () => message } }, options);
}
