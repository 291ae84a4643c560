import { ValidateBy, ValidationOptions } from 'class-validator';
import { birthDateProblem, isCalendarDate, tagListProblem, toE164 } from './patient-rules';

/*
 * class-validator decorators over the pure rules of patient-rules.ts, so that the API's ValidationPipe
 * and the bulk-import worker (which validates each row with the same DTO) agree.
 */

/** A phone number that libphonenumber-js accepts as valid in international form (+…). */
export function IsPhone(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPhone',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && value.length <= 40 && toE164(value) !== null,
        defaultMessage: () => 'must be a valid phone number in international format, e.g. +442079460000',
      },
    },
    options,
  );
}

/** A real past date `YYYY-MM-DD`, not before 1900. */
export function IsBirthDate(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isBirthDate',
      validator: {
        validate: (value: unknown) => birthDateProblem(value) === null,
        defaultMessage: (args) => birthDateProblem(args?.value) ?? 'is invalid',
      },
    },
    options,
  );
}

/** A real calendar date `YYYY-MM-DD`. */
export function IsCalendarDate(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isCalendarDate',
      validator: {
        validate: (value: unknown) => isCalendarDate(value),
        defaultMessage: () => 'must be a real date in the format YYYY-MM-DD',
      },
    },
    options,
  );
}

/** At most 50 distinct tags of 1–64 characters after trimming. */
export function IsTagList(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isTagList',
      validator: {
        validate: (value: unknown) => tagListProblem(value) === null,
        defaultMessage: (args) => tagListProblem(args?.value) ?? 'is invalid',
      },
    },
    options,
  );
}
