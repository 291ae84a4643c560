import { ValidateIf } from 'class-validator';

/*
 * For PATCH bodies, where an omitted member means "unchanged": class-validator's @IsOptional would also
 * let `null` through, which for most members is a value to refuse, not "unchanged".
 */

/** Validates the member when present; `null` is validated too (and so refused): it cannot be cleared. */
export const WhenPresent = (): PropertyDecorator => ValidateIf((_object, value) => value !== undefined);

/** Validates the member when present and not null; `null` passes: it clears the member, or means what the member documents for it. */
export const WhenClearable = (): PropertyDecorator => ValidateIf((_object, value) => value !== undefined && value !== null);
