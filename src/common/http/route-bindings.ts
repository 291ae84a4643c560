import { INestApplication, NestInterceptor, RequestMethod } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { ApiExtension } from '@nestjs/swagger';
import { routePolicyOf } from '../auth/route-policy.decorator';
import { IDEMPOTENCY_KEY_EXTENSION } from '../traffic/openapi';
import { ResponseHeadersSpec, responseHeadersSpec } from './response-headers';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by bindRoutes from the route's @Created/@Accepted/@WithETag/@NoStore; applied by route hooks. */
    responseHeaders?: ResponseHeadersSpec;
  }
}

/**
 * Whether a route honours an Idempotency-Key: a POST with a key. A public POST has no key to scope a stored
 * answer by (see IdempotencyInterceptor), so it runs no interceptor and documents no header.
 */
function honoursIdempotencyKey(method: RequestMethod, handler: object, controller: object): boolean {
  if (method !== RequestMethod.POST) return false;
  const policy = routePolicyOf(handler, controller);
  return !!policy && !policy.public;
}

const BODY_METHODS = [RequestMethod.POST, RequestMethod.PUT, RequestMethod.PATCH];

/** Whether a handler takes the request body (`@Body()`). */
function declaresBody(controller: object, name: string): boolean {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) as Record<string, unknown> | undefined) ?? {};
  return Object.keys(args).some((key) => key.split(':')[0] === String(RouteParamtypes.BODY));
}

/**
 * Decides once, at start-up, what each route runs, instead of every request of every route asking:
 * - a route's response-headers spec goes into its Fastify route config, where app.factory.ts turns it
 *   into hooks of that route only (addResponseHeadersHooks); so does `noBody`, for a POST, PUT or PATCH
 *   that declares no @Body (refuseBodies);
 * - `postInterceptor` (the Idempotency-Key interceptor) wraps the routes that honour the key (POSTs with a
 *   key), and only them; the same decision documents the optional header on exactly those operations.
 * Nest builds no interceptor pipeline (rxjs, async context) for a route that has no interceptor, so a
 * GET runs none. Call before `app.init()`, which registers the routes, and before building the OpenAPI
 * document. Without `postInterceptor` (the OpenAPI export's preview app, which instantiates no provider)
 * it binds nothing and only documents.
 */
export function bindRoutes(app: INestApplication, postInterceptor?: NestInterceptor): void {
  const scanner = new MetadataScanner(); // stateless but for a cache; a preview app instantiates none
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | undefined | null;
      const prototype = controller?.prototype as Record<string, object> | undefined;
      if (!controller || !prototype) continue;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue; // not a route
        const spec = responseHeadersSpec(handler, controller);
        const noBody = BODY_METHODS.includes(method) && !declaresBody(controller, name);
        if (spec || noBody) {
          const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as object | undefined) ?? {};
          const added = { ...(spec && { responseHeaders: spec }), ...(noBody && { noBody }) };
          Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, ...added }, handler);
        }
        if (!honoursIdempotencyKey(method, handler, controller)) continue;
        ApiExtension(IDEMPOTENCY_KEY_EXTENSION, true)(prototype, name, { value: handler });
        if (!postInterceptor) continue;
        // Another app of this process (tests) may have bound its own instance: replace it, keep the rest.
        const own = ((Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? []).filter(
          (i) => (i as object | undefined)?.constructor !== postInterceptor.constructor,
        );
        Reflect.defineMetadata(INTERCEPTORS_METADATA, [postInterceptor, ...own], handler);
      }
    }
  }
}
