import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { QueryFailedError } from 'typeorm';
import { ApiException, PROBLEM_CONTENT_TYPE, ProblemBody } from './problem';

interface Problem {
  body: ProblemBody;
  headers: Record<string, string>;
}

const TITLES: Record<number, [string, string]> = {
  400: ['bad_request', 'Bad request'],
  401: ['invalid_api_key', 'Unauthorized'],
  403: ['insufficient_scope', 'Forbidden'],
  404: ['not_found', 'Not found'],
  405: ['not_found', 'Not found'],
  409: ['conflict', 'Conflict'],
  413: ['payload_too_large', 'Payload too large'],
  415: ['unsupported_media_type', 'Unsupported media type'],
  429: ['rate_limited', 'Too many requests'],
  503: ['service_unavailable', 'Service unavailable'],
};

function problem(status: number, code: string, title: string, detail?: string): Problem {
  return { body: { type: 'about:blank', status, code, title, ...(detail ? { detail } : {}) }, headers: {} };
}

/** Errors of the network or of a backing service being down, from pg, ioredis or TypeORM. */
function isUnavailable(error: unknown): boolean {
  const e = error as { code?: string; message?: string; name?: string };
  if (!e || typeof e !== 'object') return false;
  // Network errors; PostgreSQL: admin shutdown, cannot connect now, too many connections, database gone.
  if (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', '57P01', '57P02', '57P03', '53300', '3D000'].includes(e.code ?? '')
  ) {
    return true;
  }
  const message = e.message ?? '';
  return (
    /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|not currently accepting connections|Connection is closed|MaxRetriesPerRequestError|Stream isn't writeable/i.test(
      message,
    ) || e.name === 'MaxRetriesPerRequestError'
  );
}

/** Fastify's own errors (before Nest's pipeline): body size and content type. */
function fromFastifyError(code: string | undefined): Problem | undefined {
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return problem(413, 'payload_too_large', 'Payload too large', 'The request body exceeds the size limit of this endpoint');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return problem(415, 'unsupported_media_type', 'Unsupported media type', 'Send request bodies as application/json');
    default:
      return undefined;
  }
}

/** Turns anything thrown into the contract's problem+json; 5xx bodies say nothing of internals. */
export function toProblem(exception: unknown): Problem {
  if (exception instanceof ApiException) {
    const { errors, ...extensions } = exception.extensions;
    const p = problem(exception.getStatus(), exception.code, exception.title, exception.detail);
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
    if (status === 404 || status === 405) return problem(404, 'not_found', 'Not found', 'No such route');
    if (status >= 500)
      return problem(
        status === 503 ? 503 : 500,
        status === 503 ? 'service_unavailable' : 'internal_error',
        status === 503 ? 'Service unavailable' : 'Internal error',
      );
    const [code, title] = TITLES[status] ?? ['bad_request', 'Bad request'];
    return problem(status, code, title, exception.message);
  }
  const raw = exception as { statusCode?: number; code?: string; message?: string };
  if (raw && typeof raw.statusCode === 'number' && raw.statusCode < 500) {
    const fastify = fromFastifyError(raw.code);
    if (fastify) return fastify;
  }
  if (exception instanceof QueryFailedError) {
    const driver = (exception as QueryFailedError & { driverError?: { code?: string } }).driverError;
    // 22P02: a value Postgres could not parse (e.g. a malformed uuid) that slipped past validation
    if (driver?.code === '22P02') return problem(404, 'not_found', 'Not found', 'The requested resource does not exist');
  }
  if (isUnavailable(exception) || isUnavailable((exception as { driverError?: unknown })?.driverError)) {
    const p = problem(503, 'service_unavailable', 'Service unavailable', 'A backing service is unavailable; try again shortly');
    p.headers['retry-after'] = '1';
    return p;
  }
  return problem(500, 'internal_error', 'Internal error', 'An unexpected error occurred; it has been logged');
}

/**
 * What of an unexpected error may be logged: never a query's parameters or a driver's detail, which
 * can hold patient data; for database errors only codes and names of the schema objects involved.
 */
export function loggableError(error: unknown): Record<string, unknown> {
  if (error instanceof QueryFailedError) {
    const driver = (error as QueryFailedError & { driverError?: Record<string, unknown> }).driverError ?? {};
    return { type: 'QueryFailedError', code: driver.code, table: driver.table, constraint: driver.constraint, routine: driver.routine };
  }
  if (error instanceof Error)
    return { type: error.name, code: (error as { code?: unknown }).code, message: error.message, stack: error.stack };
  return { type: typeof error };
}

@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const request = ctx.getRequest<FastifyRequest>();
    const reply = ctx.getResponse<FastifyReply>();
    const { body, headers } = toProblem(exception);
    body.requestId = request.id;
    if (body.status >= 500) {
      this.logger.error({ error: loggableError(exception), requestId: request.id }, `request failed with ${body.status}`);
    }
    if (body.status === 401) headers['www-authenticate'] = 'Bearer';
    void reply.status(body.status).headers(headers).type(PROBLEM_CONTENT_TYPE).send(body);
  }
}
