import { HttpException } from '@nestjs/common';
import { ERROR_CODES, ErrorCode } from './error-codes';

export interface FieldError {
  field: string;
  message: string;
}

/** The RFC 9457 body every error answers with (application/problem+json). */
export interface ProblemBody {
  type: string;
  status: number;
  code: ErrorCode;
  title: string;
  detail?: string;
  requestId?: string;
  errors?: FieldError[];
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * An error the API answers on purpose: a `code` of ERROR_CODES, a human `title` and `detail`, optional
 * field errors and extension members (e.g. `alternatives`), optional response headers.
 */
export class ApiException extends HttpException {
  constructor(
    status: number,
    readonly code: ErrorCode,
    readonly title: string,
    readonly detail?: string,
    readonly extensions: Record<string, unknown> & { errors?: FieldError[] } = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(detail ?? title, status);
  }
}

export class ValidationFailedException extends ApiException {
  constructor(errors: FieldError[], detail?: string) {
    const count = errors.length;
    super(400, 'validation_failed', 'Validation failed', detail ?? `${count} field${count === 1 ? ' is' : 's are'} invalid`, {
      errors,
    });
  }
}

export class ResourceNotFoundProblem extends ApiException {
  constructor(what = 'The requested resource') {
    super(404, 'not_found', 'Not found', `${what} does not exist`);
  }
}

export class ConflictProblem extends ApiException {
  constructor(code: ErrorCode, title: string, detail: string, extensions: Record<string, unknown> = {}) {
    super(409, code, title, detail, extensions);
  }
}

export class ServiceUnavailableProblem extends ApiException {
  constructor(detail = 'A backing service is unavailable; try again shortly') {
    super(503, 'service_unavailable', 'Service unavailable', detail, {}, { 'retry-after': '1' });
  }
}

/** An ApiException with the status and title that ERROR_CODES gives its code. */
export function problemOf(
  code: ErrorCode,
  detail?: string,
  extensions?: Record<string, unknown> & { errors?: FieldError[] },
  headers?: Record<string, string>,
): ApiException {
  const { status, title } = ERROR_CODES[code];
  return new ApiException(status, code, title, detail, extensions, headers);
}
