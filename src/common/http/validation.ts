import { ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldError, ValidationFailedException } from './problem';

function message(property: string, constraint: string, text: string): string {
  if (constraint === 'whitelistValidation') return 'is not a known property';
  // class-validator starts messages with the property name; errors[] names the field already.
  return text.startsWith(`${property} `) ? text.slice(property.length + 1) : text;
}

/**
 * Flattens class-validator's tree into `errors[]` with dotted paths (`fields.0.type`): one entry per
 * field, its messages joined.
 */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const messages = Object.entries(error.constraints ?? {}).map(([constraint, text]) => message(error.property, constraint, text));
    if (messages.length) out.push({ field, message: messages.join('; ') });
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}

/** The one global ValidationPipe: strict DTOs, unknown properties rejected, explicit conversions only. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    validationError: { target: false, value: false },
    stopAtFirstError: false,
    exceptionFactory: (errors) => new ValidationFailedException(flattenValidationErrors(errors)),
  });
}
