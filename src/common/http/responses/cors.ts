import fastifyCors, { FastifyCorsOptions } from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_PREFIX } from './response-headers';

/** Routes under this prefix take no key and are meant for other sites' pages (booking pages, links in emails). */
export const PUBLIC_PATH_PREFIX = `/${API_PREFIX}/public/`;

export const isPublicPath = (url: string): boolean => url.startsWith(PUBLIC_PATH_PREFIX);

/** What a page may read of an answer besides the CORS-safelisted headers. */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'Location',
  'ETag',
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Idempotent-Replayed',
];
/** Browsers cache a preflight's answer this many seconds (Chromium caps it at 7200). */
const PREFLIGHT_MAX_AGE = 3600;

/**
 * A preflight goes on through the request checks and the rate limiter to the plugin's OPTIONS route, which
 * answers it (200); the options a delegator returns replace the plugin's, so each policy says so itself.
 */
const ANSWERED_BY_ROUTE: FastifyCorsOptions = { preflightContinue: true };

/** Public routes: any origin, never credentials (they take no key and set no cookie). */
const PUBLIC_CORS: FastifyCorsOptions = {
  ...ANSWERED_BY_ROUTE,
  origin: '*',
  credentials: false,
  methods: ['GET', 'HEAD', 'POST'],
  allowedHeaders: ['Content-Type', 'X-Request-Id'],
  exposedHeaders: EXPOSED_HEADERS,
  maxAge: PREFLIGHT_MAX_AGE,
};
const NO_CORS: FastifyCorsOptions = { origin: false };

/**
 * Browser access (docs/operations.md, CORS), through @fastify/cors with a per-request policy:
 * - /api/v1/public/…: any origin, no credentials, preflights answered;
 * - keyed routes: only an origin that CORS_ORIGINS lists gets CORS headers (its own origin echoed, with
 *   Authorization among the allowed headers; a bearer key is not a CORS credential, so none are allowed);
 * - anything else, and a preflight for a route that does not exist, gets none: such a preflight falls to
 *   the not-found handler (404 problem+json), as any request to an unknown route does.
 * Its hook runs before the request checks and the rate limiter, so that their refusals (400, 429) carry
 * the headers too and a page can read them; preflights then pass the same checks and are counted per client
 * IP (limitUnmatchedRoutes: no guard sees them) before the plugin's OPTIONS route answers them.
 */
export async function registerCors(fastify: FastifyInstance, allowedOrigins: readonly string[]): Promise<void> {
  const listed = new Set(allowedOrigins);
  const keyedCors = (origin: string): FastifyCorsOptions => ({
    ...ANSWERED_BY_ROUTE,
    origin,
    credentials: false,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'X-Request-Id'],
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE,
  });
  const policy = (request: FastifyRequest): FastifyCorsOptions => {
    const origin = request.headers.origin;
    if (!origin) return NO_CORS;
    const path = request.url.split('?', 1)[0];
    if (request.method === 'OPTIONS') {
      const method = request.headers['access-control-request-method'];
      if (typeof method !== 'string' || !fastify.findRoute({ method, url: path })) return NO_CORS;
    }
    if (isPublicPath(path)) return PUBLIC_CORS;
    return listed.has(origin) ? keyedCors(origin) : NO_CORS;
  };
  await fastify.register(fastifyCors, {
    hook: 'onRequest',
    delegator: (request, callback) => callback(null, policy(request)),
  });
}
