import { applyDecorators, CallHandler, ExecutionContext, HttpCode, Injectable, NestInterceptor, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { map, Observable } from 'rxjs';

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
 * read by ResponseHeadersInterceptor. `renderResponse` is a pure function of this and the handler's
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

/** The route's response-headers spec, or undefined when it declares none. */
export function responseHeadersSpec(reflector: Reflector, context: ExecutionContext): ResponseHeadersSpec | undefined {
  const targets = [context.getHandler(), context.getClass()];
  const spec: ResponseHeadersSpec = {
    location: reflector.get<LocationOf | undefined>(LOCATION, context.getHandler()),
    etag: reflector.get<boolean | undefined>(ETAG, context.getHandler()),
    noStore: reflector.getAllAndOverride<boolean | undefined>(NO_STORE, targets),
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
 * Applies the route's response-headers spec. Registered after the Idempotency-Key interceptor, so it
 * sits inside it: a replayed answer (already serialised, headers kept) does not pass through here.
 * `Cache-Control: no-store` is set before the handler runs, so error answers of the route carry it too.
 */
@Injectable()
export class ResponseHeadersInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const spec = responseHeadersSpec(this.reflector, context);
    if (!spec) return next.handle();
    const http = context.switchToHttp();
    const reply = http.getResponse<FastifyReply>();
    if (spec.noStore) void reply.header('cache-control', 'no-store');
    const params = (http.getRequest<FastifyRequest>().params ?? {}) as Record<string, string>;
    return next.handle().pipe(
      map((result) => {
        const { body, headers } = renderResponse(spec, result, params);
        void reply.headers(headers);
        return body;
      }),
    );
  }
}
