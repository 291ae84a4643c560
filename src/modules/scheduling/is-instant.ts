import { ValidateBy, ValidationOptions } from 'class-validator';
import { DateTime } from 'luxon';

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** A real date-time with Z or an offset: an instant nobody has to guess the timezone of. */
export function isInstant(value: unknown): value is string {
  return typeof value === 'string' && INSTANT.test(value) && DateTime.fromISO(value, { setZone: true }).isValid;
}

export function IsInstant(options?: ValidationOptions): PropertyDecorator {
  const message = 'must be a real date-time with Z or an offset, e.g. 2027-03-12T14:00:00Z';
  return ValidateBy({ name: 'isInstant', validator: { validate: isInstant, defaultMessage: () => message } }, options);
}
