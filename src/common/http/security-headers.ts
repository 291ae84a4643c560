import type { FastifyHelmetOptions } from '@fastify/helmet';
import { createRequire } from 'node:module';
import type { OutgoingHttpHeaders } from 'node:http';

/** The options of @fastify/helmet, which sets these headers on every response. */
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
 * The same headers as a plain object, for the few answers written to the socket without a response
 * object (clientError). Computed once by the helmet that @fastify/helmet itself loads, so both agree.
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
