import { ValidationFailedException } from '../http/errors/problem';

/** Who a message goes to: an address (email or phone number) and the patient it was taken from, if any. */
export interface Recipient<P> {
  to: string;
  patient: P | null;
}

/** 400 naming `first` unless exactly one of the two members is sent (neither undefined nor null). */
export function requireExactlyOne<T extends object>(values: T, first: keyof T & string, second: keyof T & string): void {
  const has = (v: unknown): boolean => v !== undefined && v !== null;
  if (has(values[first]) === has(values[second])) {
    throw new ValidationFailedException([{ field: first, message: `or ${second} is required, and only one of them` }]);
  }
}
