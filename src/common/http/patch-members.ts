import { ValidateIf } from 'class-validator';

/*
 * For PATCH bodies, where an omitted member means "unchanged": class-validator's @IsOptional would also
 * let `null` through, which for most members is a value to refuse, not "unchanged".
 */

/** Validates the member when present; `null` is validated too (and so refused): it cannot be cleared. */
export const WhenPresent = (member: string): PropertyDecorator => ValidateIf((o: Record<string, unknown>) => o[member] !== undefined);

/** Validates the member when present and not null; `null` clears it. */
export const WhenClearable = (member: string): PropertyDecorator =>
  ValidateIf((o: Record<string, unknown>) => o[member] !== undefined && o[member] !== null);
