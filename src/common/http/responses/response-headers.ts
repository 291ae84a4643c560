import { applyDecorators, HttpCode, SetMetadata } from '@nestjs/common';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/** Every API route lives under this prefix (health and metrics excepted); Location headers are built on it. */
export const API_PREFIX = 'api/v1';

/** The URL path of an API resource from its segments: `apiPath('patients', id)` → `/api/v1/patients/<id>`. */
export function apiPath(...segments: string[]): string {
  return `/${API_PREFIX}/${segments.map(encodeURIComponent).join('/')}`;
}

/** What a @WithETag() route returns: the body to send and the ETag of the version it shows. */
export interface Tagged<T> {
  body: T;
  etag: string;
}

/** Path segments of a resource under API_PREFIX, from the response body and the route's path parameters; undefined: no Location. */
export type LocationOf<B = never> = (body: B, params: Record<string, string>) => readonly string[] | undefined;

/**
 * How a route's response headers derive from what its handler returns; set by the decorators below and
 * applied by addResponseHeadersHooks. `renderResponse` is a pure function of this and the handler's
 * result, so anything that must rebuild a response (an idempotent replay) gets the same headers.
 */
export interface ResponseHeadersSpec {
  location?: LocationOf;
  /** The handler returns Tagged<T>: ETag from it, `body` sent. */
  etag?: boolean;
  /** `Cache-Control: no-store`: the response carries patient data or a secret. */
  noStore?: boolean;
}

const LOCATION = 'response:location';
const ETAG = 'response:etag';
const NO_STORE = 'response:no-store';

/** 201 with `Location: /api/v1/<segments>`, e.g. `@Created((p: PatientDto) => ['patients', p.id])`. */
export function Created<B>(location: LocationOf<B>): MethodDecorator {
  return applyDecorators(HttpCode(201), SetMetadata(LOCATION, location));
}

/** 202 with `Location` of where to follow the work (a job's status), when `location` answers one. */
export function Accepted<B>(location: LocationOf<B>): MethodDecorator {
  return applyDecorators(HttpCode(202), SetMetadata(LOCATION, location));
}

/** The handler returns `Tagged<T>`: the response carries its `ETag` and its `body`. */
export const WithETag = (): MethodDecorator => SetMetadata(ETAG, true);

/** `Cache-Control: no-store` on every response of the route (or of every route of the controller), errors included. */
export const NoStore = (): MethodDecorator & ClassDecorator => SetMetadata(NO_STORE, true);

/** The response-headers spec of a route (its handler, then its controller for @NoStore), or undefined when it declares none. */
export function responseHeadersSpec(handler: object, controller: object): ResponseHeadersSpec | undefined {
  const spec: ResponseHeadersSpec = {
    location: Reflect.getMetadata(LOCATION, handler) as LocationOf | undefined,
    etag: Reflect.getMetadata(ETAG, handler) as boolean | undefined,
    noStore: (Reflect.getMetadata(NO_STORE, handler) ?? Reflect.getMetadata(NO_STORE, controller)) as boolean | undefined,
  };
  return spec.location || spec.etag || spec.noStore ? spec : undefined;
}

/** The body to send and the headers to set for a handler's result. Pure: same spec and result, same answer. */
export function renderResponse(
  spec: ResponseHeadersSpec,
  result: unknown,
  params: Record<string, string> = {},
): { body: unknown; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  let body = result;
  if (spec.etag) {
    const tagged = result as Tagged<unknown>;
    headers.etag = tagged.etag;
    body = tagged.body;
  }
  const segments = spec.location?.(body as never, params);
  if (segments) headers.location = apiPath(...segments);
  if (spec.noStore) headers['cache-control'] = 'no-store';
  return { body, headers };
}

/**
 * Applies a route's response-headers spec with hooks of that route alone (see bindRoutes), so a route
 * without one pays nothing. `Cache-Control: no-store` is set when the request arrives, so every answer of
 * the route carries it, errors included; ETag and Location are derived from the handler's result just
 * before it is serialised. A replayed idempotent answer (a string, already serialised, its headers kept)
 * is not serialised again and so does not pass through here.
 */
export function addResponseHeadersHooks(route: RouteOptions, spec: ResponseHeadersSpec): void {
  if (spec.noStore) {
    addRouteHook(route, 'onRequest', (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      void reply.header('cache-control', 'no-store');
      done();
    });
  }
  if (spec.location || spec.etag) {
    addRouteHook(route, 'preSerialization', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: Done) => {
      if (reply.statusCode >= 400) return done(null, payload); // a problem+json answer
      const { body, headers } = renderResponse(spec, payload, request.params as Record<string, string>);
      void reply.headers(headers);
      done(null, body);
    });
  }
}

type Done = (err: Error | null, payload: unknown) => void;

/** Appends a hook to a route's own hooks (as Fastify's onRoute sees them), keeping any it has. */
export function addRouteHook(
  route: RouteOptions,
  name: 'onRequest' | 'preValidation' | 'preSerialization' | 'onSend',
  hook: unknown,
): void {
  const existing = route[name] as unknown;
  const hooks: unknown[] = existing === undefined ? [] : Array.isArray(existing) ? (existing as unknown[]) : [existing];
  (route as unknown as Record<string, unknown>)[name] = [...hooks, hook];
}
