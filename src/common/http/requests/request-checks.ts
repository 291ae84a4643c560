import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { IncomingMessage, OutgoingHttpHeaders, ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode, ERROR_CODES } from '../errors/error-codes';
import { PROBLEM_CONTENT_TYPE, problemOf, ValidationFailedException } from '../errors/problem';
import { queryProblem } from './query';

const FRAMEWORK_ERROR = Symbol('frameworkError');
type MarkedRequest = IncomingMessage & { [FRAMEWORK_ERROR]?: { error: FastifyError; url: string | undefined } };

/** How many times a header (lower-case name) was sent; Node keeps only the first Authorization. */
function headerCount(rawHeaders: string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].length === name.length && rawHeaders[i].toLowerCase() === name) count++;
  }
  return count;
}

/**
 * Fastify's `frameworkErrors` option: errors the router meets before any route (a path that does not
 * decode, FST_ERR_BAD_URL; a parameter over maxParamLength, FST_ERR_MAX_PARAM_LENGTH). Fastify would
 * answer them from a bare context, without our hooks. Instead the request is routed again to a path no
 * route matches, and the hook of `checkRequests` raises the error there, so that it takes the way of every
 * other error: the one exception filter, X-Request-Id, the security headers, the log and the metrics.
 */
export function rerouteFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw as MarkedRequest;
  raw[FRAMEWORK_ERROR] = { error, url: raw.url };
  raw.url = '/';
  request.server.routing(raw, reply.raw);
}

/**
 * Refuses, before anything else runs, what the platform can tell is hostile from the request line and
 * headers: a query that parseQuery found undecodable or unstorable (400 validation_failed naming the
 * key), and several Authorization headers (400 bad_request: which one would count is ambiguous).
 */
export function checkRequests(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw as MarkedRequest;
    const marked = raw[FRAMEWORK_ERROR];
    if (marked) {
      raw.url = marked.url; // logged as the client sent it
      return done(marked.error);
    }
    // These answers come before the route's own hooks (its @NoStore among them) could run, and a refusal
    // is never worth caching, so each says no-store itself: a patient route's 400 stays out of caches.
    const query = queryProblem(request.query);
    if (query) return done(noStore(reply, new ValidationFailedException([query])));
    if (headerCount(raw.rawHeaders, 'authorization') > 1) {
      return done(noStore(reply, problemOf('bad_request', 'Send one Authorization header, not several')));
    }
    done();
  });
}

function noStore<E extends Error>(reply: FastifyReply, error: E): E {
  void reply.header('cache-control', 'no-store');
  return error;
}

const CLIENT_ERRORS: Record<string, { code: ErrorCode; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', detail: 'The request was not received in time' },
  HPE_HEADER_OVERFLOW: { code: 'headers_too_large', detail: 'The request headers are too large' },
};

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses (a bad chunk size, a body cut short of
 * its Content-Length, a malformed request line) never becomes a request, so no hook or filter can see it.
 * It is answered here in the same shape: problem+json, X-Request-Id (that of the request in flight, if
 * any) and the security headers the app sends.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, securityHeaders: OutgoingHttpHeaders): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // Node's response in progress on this socket, when the parser failed in a request's body.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse<IncomingMessage & { requestId?: string }> })._httpMessage;
  const { code, detail } = CLIENT_ERRORS[error.code ?? ''] ?? { code: 'bad_request', detail: 'The request is malformed' };
  const { status, title } = ERROR_CODES[code];
  const requestId = inFlight?.req?.requestId ?? randomUUID();
  if (socket.writable && !inFlight?.headersSent) {
    const body = JSON.stringify({ type: 'about:blank', status, code, title, detail, requestId });
    const headers: OutgoingHttpHeaders = {
      ...securityHeaders,
      'content-type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId,
      connection: 'close',
    };
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : String(value)}`);
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('\r\n')}\r\n\r\n${body}`);
  }
  socket.destroy(error);
}
