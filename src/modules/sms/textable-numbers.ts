import { ValidateBy, ValidationOptions } from 'class-validator';
import { parsePhoneNumberFromString, type CountryCode, type NumberType } from 'libphonenumber-js/max';

/** A person's own phone: the only numbers a practice texts. */
const TEXTABLE: ReadonlySet<NumberType> = new Set(['MOBILE', 'FIXED_LINE', 'FIXED_LINE_OR_MOBILE']);

const KINDS: Partial<Record<NonNullable<NumberType>, string>> = {
  PREMIUM_RATE: 'a premium-rate',
  SHARED_COST: 'a shared-cost',
  TOLL_FREE: 'a toll-free',
  VOIP: 'a VoIP',
  PERSONAL_NUMBER: 'a personal (follow-me)',
  PAGER: 'a pager',
  UAN: 'a universal access',
  VOICEMAIL: 'a voicemail',
};

const ONLY = 'only mobile and fixed-line numbers may be texted';

/** The country of an international number as libphonenumber-js places it, or null (no number, or a non-geographic one). */
export function countryOf(number: string): CountryCode | null {
  return parsePhoneNumberFromString(number)?.country ?? null;
}

/**
 * Why the practice may not text this international number, or null when it may; undefined for a string
 * that is not a phone number at all (the caller's format check answers that). Texts to premium-rate or
 * shared-cost numbers bill the practice for someone else's revenue, so only a person's own phone is allowed,
 * as libphonenumber-js's full metadata types it: a number of a non-geographic calling code (satellite and
 * international networks, +870, +881, +882, +979 …) is refused even when typed mobile, since those are billed
 * like premium numbers, and so is a number the metadata cannot type (no assigned range says it is anyone's phone).
 * With `allowedCountries` (the practice's `smsCountries`, or the country of its sending number), a number of any
 * other country is refused too; null or absent allows every country.
 */
export function untextableReason(number: string, allowedCountries?: readonly string[] | null): string | null | undefined {
  const parsed = parsePhoneNumberFromString(number);
  if (!parsed) return undefined;
  if (!parsed.country) return `is a satellite or international network number (+${parsed.countryCallingCode}); ${ONLY}`;
  const type = parsed.getType();
  if (!type) return `is in no assigned range of +${parsed.countryCallingCode}; ${ONLY}`;
  if (!TEXTABLE.has(type)) return `is ${KINDS[type] ?? 'a non-personal'} number; ${ONLY}`;
  if (allowedCountries && !allowedCountries.includes(parsed.country))
    return `is a number of ${parsed.country}; the practice texts only ${allowedCountries.join(', ')} (practice settings smsCountries)`;
  return null;
}

/**
 * A number of a kind the practice may text (see untextableReason; its countries are the tenant's, checked by
 * SmsConsent.untextable once the scope is known); a string that is no phone number is left to the format check.
 */
export function IsTextableNumber(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isTextableNumber',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !untextableReason(value),
        defaultMessage: (args) => untextableReason(String(args?.value)) ?? 'is not a number the practice may text',
      },
    },
    options,
  );
}
