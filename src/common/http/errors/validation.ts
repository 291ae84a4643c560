import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { FieldError, ValidationFailedException } from './problem';

/*
 * One message per field, the most specific: a missing value "is required"; otherwise a wrong type before
 * a wrong format, and a format before a length or range (a number sent as a string is not also "too
 * short"). Constraints not named here are formats (custom validators, matches, isEmail, …).
 */
const RANK: Record<string, number> = {
  whitelistValidation: 0,
  isDefined: 1,
  isString: 2,
  isNumber: 2,
  isInt: 2,
  isBoolean: 2,
  isArray: 2,
  isObject: 2,
  nestedValidation: 2,
  isEnum: 3,
  isIn: 3,
  isNotEmpty: 5,
  arrayNotEmpty: 5,
  length: 5,
  minLength: 5,
  maxLength: 5,
  min: 5,
  max: 5,
  arrayMinSize: 5,
  arrayMaxSize: 5,
};
const FORMAT_RANK = 4;

function text(property: string, constraint: string, message: string): string {
  if (constraint === 'whitelistValidation') return 'is not a known property';
  // class-validator starts messages with the property name; errors[] names the field already.
  return message.startsWith(`${property} `) ? message.slice(property.length + 1) : message;
}

/** The one message of a field's failed constraints. */
function fieldMessage(error: ValidationError): string | undefined {
  const constraints = Object.entries(error.constraints ?? {});
  if (!constraints.length) return undefined;
  if (!constraints.some(([name]) => name === 'whitelistValidation')) {
    if (error.value === undefined) return 'is required';
    if (error.value === null) return 'must not be null';
  }
  const [name, message] = constraints.reduce((best, next) =>
    (RANK[next[0]] ?? FORMAT_RANK) < (RANK[best[0]] ?? FORMAT_RANK) ? next : best,
  );
  return text(error.property, name, message);
}

/** Flattens class-validator's tree into `errors[]` with dotted paths (`fields.0.type`): one entry per field. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const message = fieldMessage(error);
    if (message) out.push({ field, message });
    if (error.children?.length) out.push(...flattenValidationErrors(error.children, field));
  }
  return out;
}

/**
 * Keys of a query or body that name Object.prototype members (`__proto__`, `constructor`, `toString`):
 * class-transformer never copies them onto the DTO, so the whitelist cannot see them; they are unknown
 * properties all the same.
 */
function prototypeKeys(value: unknown): FieldError[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.keys(value)
    .filter((key) => key in Object.prototype)
    .map((field) => ({ field, message: 'is not a known property' }));
}

/** Why a body is not one a route with a body DTO takes (a JSON object), or undefined when it is one. */
export function bodyShapeProblem(value: unknown): FieldError | undefined {
  if (value === undefined) return { field: 'body', message: 'is required: send a JSON object' };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { field: 'body', message: 'must be a JSON object' };
  return undefined;
}

/**
 * The one global ValidationPipe: strict DTOs, unknown properties rejected, explicit conversions only. A
 * body DTO is given a JSON object: `null` or no body at all is not taken as `{}` (on a PUT or PATCH whose
 * members are all optional it would answer 200 to a request that said nothing).
 */
class StrictValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && this.toValidate(metadata)) {
      const problem = bodyShapeProblem(value);
      if (problem) throw new ValidationFailedException([problem]);
    }
    if ((metadata.type === 'query' || metadata.type === 'body') && metadata.metatype && this.toValidate(metadata)) {
      const unknown = prototypeKeys(value);
      if (unknown.length) throw new ValidationFailedException(unknown);
    }
    return super.transform(value, metadata);
  }
}

export function createValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    // The value is kept to tell a missing field from a bad one; errors[] never quotes it.
    validationError: { target: false, value: true },
    stopAtFirstError: false,
    exceptionFactory: (errors) => new ValidationFailedException(flattenValidationErrors(errors)),
  });
}
