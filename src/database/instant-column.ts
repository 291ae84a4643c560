import { Column } from 'typeorm';

/**
 * A `timestamptz(3)` column: an instant to the millisecond, as JavaScript's Date holds it (keyset cursors
 * compare them exactly). `nullable`: a time that may not have come yet.
 */
export function InstantColumn(options: { nullable?: boolean } = {}): PropertyDecorator {
  return Column({ type: 'timestamptz', precision: 3, nullable: options.nullable ?? false });
}
