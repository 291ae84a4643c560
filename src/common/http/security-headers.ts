import type { FastifyHelmetOptions } from '@fastify/helmet';
import { createRequire } from 'node:module';
import type { OutgoingHttpHeaders } from 'node:http';

/** The options of helmet; its headers are computed once (securityHeaders) and set on every response (app.factory.ts). */
export const SECURITY_HEADERS_OPTIONS: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    directives: {
      defaultSrc: [`'self'`],
      styleSrc: [`'self'`, `'unsafe-inline'`],
      imgSrc: [`'self'`, 'data:', 'validator.swagger.io'],
      scriptSrc: [`'self'`, `https: 'unsafe-inline'`],
    },
  },
};

type HelmetMiddleware = (
  req: unknown,
  res: { setHeader(name: string, value: string): void; removeHeader(name: string): void },
  next: () => void,
) => void;

let computed: OutgoingHttpHeaders | undefined;

/**
 * Helmet's headers as a plain object, computed once by the helmet that @fastify/helmet ships: set on every
 * response by an onRequest hook, and written as they are on the few answers sent without a response object
 * (clientError). Helmet's middleware would rebuild them, CSP included, on every request.
 */
export function securityHeaders(): OutgoingHttpHeaders {
  if (computed) return computed;
  const load = createRequire(require.resolve('@fastify/helmet'));
  const helmet = load('helmet') as (options: object) => HelmetMiddleware;
  const headers: OutgoingHttpHeaders = {};
  const { global: _global, enableCSPNonces: _nonces, ...options } = SECURITY_HEADERS_OPTIONS;
  helmet(options)(
    {},
    { setHeader: (name, value) => (headers[name.toLowerCase()] = value), removeHeader: () => undefined },
    () => undefined,
  );
  computed = headers;
  return headers;
}
