import { createRequire } from 'node:module';
import type { OutgoingHttpHeaders } from 'node:http';

/**
 * The Content-Security-Policy (with `connect-src` per variant); helmet's headers are computed once per variant
 * (securityHeaders) and set on every response (app.factory.ts). No `upgrade-insecure-requests`: an internal deployment served over plain
 * http on a host name (Swagger UI, the unsubscribe page) would otherwise have the browser fetch every asset
 * and post every form over https, which such a host does not answer.
 */
const CSP_DIRECTIVES = {
  defaultSrc: [`'self'`],
  styleSrc: [`'self'`, `'unsafe-inline'`],
  imgSrc: [`'self'`, 'data:', 'validator.swagger.io'],
  scriptSrc: [`'self'`, `https: 'unsafe-inline'`],
  upgradeInsecureRequests: null,
};

export interface SecurityHeadersVariant {
  /** The API is served over https (PUBLIC_URL): only then Strict-Transport-Security, which would pin a plain-http host to https. */
  https?: boolean;
  /**
   * PUBLIC_URL when set: Swagger UI calls its own origin (the document's `/` server) by default, and may be
   * switched to this address, its second server, when the page was loaded under another name.
   */
  publicUrl?: string;
  /** An answer meant for other sites (/api/v1/public/…): `Cross-Origin-Resource-Policy: cross-origin` instead of same-origin. */
  crossOrigin?: boolean;
}

type HelmetMiddleware = (
  req: unknown,
  res: { setHeader(name: string, value: string): void; removeHeader(name: string): void },
  next: () => void,
) => void;

const computed = new Map<string, OutgoingHttpHeaders>();

/**
 * Helmet's headers as a plain object, computed once per variant by the helmet that @fastify/helmet ships:
 * set on every response by an onRequest hook, and written as they are on the few answers sent without a
 * response object (clientError). Helmet's middleware would rebuild them, CSP included, on every request.
 */
export function securityHeaders({ https = false, publicUrl, crossOrigin = false }: SecurityHeadersVariant = {}): OutgoingHttpHeaders {
  const variant = `${https}:${crossOrigin}:${publicUrl ?? ''}`;
  const known = computed.get(variant);
  if (known) return known;
  const load = createRequire(require.resolve('@fastify/helmet'));
  const helmet = load('helmet') as (options: object) => HelmetMiddleware;
  const headers: OutgoingHttpHeaders = {};
  const connectSrc = publicUrl ? [`'self'`, new URL(publicUrl).origin] : [`'self'`];
  helmet({
    contentSecurityPolicy: { directives: { ...CSP_DIRECTIVES, connectSrc } },
    strictTransportSecurity: https,
    crossOriginResourcePolicy: { policy: crossOrigin ? 'cross-origin' : 'same-origin' },
  })({}, { setHeader: (name, value) => (headers[name.toLowerCase()] = value), removeHeader: () => undefined }, () => undefined);
  computed.set(variant, headers);
  return headers;
}
