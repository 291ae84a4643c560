import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { QueryFailedError } from 'typeorm';
import { sqlStateOf } from '../../../database/database-errors';
import { DependencyStatus, isUnavailable } from '../../observability/dependency-status';
import { ERROR_CODES, ErrorCode } from './error-codes';
import { ApiException, PROBLEM_CONTENT_TYPE, ProblemBody } from './problem';

interface Problem {
  body: ProblemBody;
  headers: Record<string, string>;
}

/** The code of an HttpException that is not ours (Nest's, a pipe's), by its status. */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'invalid_api_key',
  403: 'insufficient_scope',
  404: 'not_found',
  405: 'not_found',
  408: 'request_timeout',
  412: 'precondition_failed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  431: 'headers_too_large',
  503: 'service_unavailable',
};

function problem(code: ErrorCode, detail?: string, status: number = ERROR_CODES[code].status): Problem {
  const { title } = ERROR_CODES[code];
  return { body: { type: 'about:blank', status, code, title, ...(detail ? { detail } : {}) }, headers: {} };
}

/**
 * Fastify's own errors, raised before Nest's pipeline: body size, content type and framing, and the URL
 * (a path that does not decode or a parameter over maxParamLength names no resource: 404, as a malformed
 * id does). Their messages are not echoed: some quote the request.
 */
function fromFastifyError(code: string | undefined): Problem | undefined {
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem('payload_too_large', 'The request body exceeds the size limit of this endpoint');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return problem('unsupported_media_type', 'Send request bodies as application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problem('bad_request', 'The request body does not match its Content-Length');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return problem('not_found', 'The requested resource does not exist');
    default:
      return undefined;
  }
}

/** Turns anything thrown into the API's problem+json (docs/api.md, Errors); 5xx bodies say nothing of internals. */
export function toProblem(exception: unknown): Problem {
  if (exception instanceof ApiException) {
    const { errors, ...extensions } = exception.extensions;
    const p: Problem = {
      body: { type: 'about:blank', status: exception.getStatus(), code: exception.code, title: exception.title },
      headers: {},
    };
    if (exception.detail) p.body.detail = exception.detail;
    Object.assign(p.body, extensions);
    if (errors) p.body.errors = errors;
    p.headers = { ...exception.headers };
    return p;
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const cause = exception.cause as { code?: string } | undefined;
    const fastify = fromFastifyError(cause?.code);
    if (fastify) return fastify;
    if (status === 404 || status === 405) return problem('not_found', 'No such route');
    if (status >= 500) return problem(status === 503 ? 'service_unavailable' : 'internal_error');
    const code = CODE_BY_STATUS[status] ?? 'bad_request';
    return problem(code, exception.message, status);
  }
  const raw = exception as { statusCode?: number; code?: string; message?: string };
  if (raw && typeof raw.statusCode === 'number' && raw.statusCode < 500) {
    const fastify = fromFastifyError(raw.code);
    if (fastify) return fastify;
    return problem(CODE_BY_STATUS[raw.statusCode] ?? 'bad_request', undefined, raw.statusCode);
  }
  // SQLSTATE class 22 (data exception): a value the client sent that PostgreSQL cannot take (out of
  // range, malformed, NUL in text) and that slipped past validation. The client's fault, not ours.
  const sqlState = sqlStateOf(exception);
  if (sqlState?.startsWith('22')) return problem('validation_failed', 'A value in the request is malformed or out of range');
  // 23502 (not-null violation): a null the client sent for a value the record cannot lack, which a DTO's
  // @IsOptional() let through (it passes null as well as undefined).
  if (sqlState === '23502') return problem('validation_failed', 'A value the record requires is null or missing');
  if (isUnavailable(exception) || isUnavailable((exception as { driverError?: unknown })?.driverError)) {
    const p = problem('service_unavailable', 'A backing service is unavailable; try again shortly');
    p.headers['retry-after'] = '1';
    return p;
  }
  return problem('internal_error', 'An unexpected error occurred; it has been logged');
}

/**
 * What of an unexpected error may be logged: never a query's parameters or a driver's detail, which
 * can hold patient data; for database errors only codes and names of the schema objects involved.
 */
export function loggableError(error: unknown): Record<string, unknown> {
  if (error instanceof QueryFailedError) {
    const driver = (error as QueryFailedError & { driverError?: Record<string, unknown> }).driverError ?? {};
    const code = typeof driver.code === 'string' ? driver.code : undefined;
    return {
      type: 'QueryFailedError',
      code,
      sqlClass: code?.slice(0, 2),
      table: driver.table,
      constraint: driver.constraint,
      routine: driver.routine,
    };
  }
  if (error instanceof Error)
    return { type: error.name, code: (error as { code?: unknown }).code, message: error.message, stack: error.stack };
  return { type: typeof error };
}

@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(private readonly dependencies: DependencyStatus) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const request = ctx.getRequest<FastifyRequest>();
    const reply = ctx.getResponse<FastifyReply>();
    const { body, headers } = toProblem(exception);
    body.requestId = request.id;
    if (body.code === 'service_unavailable') {
      // An outage is told once by the dependency's state change (and counted on /metrics), not per request.
      this.dependencies.unavailableAnswers++;
      this.dependencies.reportFailure(exception);
    } else if (body.status >= 500) {
      // The one line of a failed request besides its request line, with the route pattern (no ids).
      this.logger.error(
        { error: loggableError(exception), requestId: request.id, method: request.method, route: request.routeOptions.url ?? null },
        `request failed with ${body.status}`,
      );
    }
    if (body.status === 401) headers['www-authenticate'] = 'Bearer';
    void reply.status(body.status).headers(headers).type(PROBLEM_CONTENT_TYPE).send(body);
  }
}
