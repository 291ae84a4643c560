import { INestApplication, NestInterceptor, RequestMethod } from '@nestjs/common';
import { INTERCEPTORS_METADATA, METHOD_METADATA } from '@nestjs/common/constants.js';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { ResponseHeadersSpec, responseHeadersSpec } from './response-headers';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by bindRoutes from the route's @Created/@Accepted/@WithETag/@NoStore; applied by route hooks. */
    responseHeaders?: ResponseHeadersSpec;
  }
}

/**
 * Decides once, at start-up, what each route runs, instead of every request of every route asking:
 * - a route's response-headers spec goes into its Fastify route config, where app.factory.ts turns it
 *   into hooks of that route only (addResponseHeadersHooks);
 * - `postInterceptor` (the Idempotency-Key interceptor) wraps the POST routes, and only them.
 * Nest builds no interceptor pipeline (rxjs, async context) for a route that has no interceptor, so a
 * GET runs none. Call before `app.init()`, which registers the routes.
 */
export function bindRoutes(app: INestApplication, postInterceptor: NestInterceptor): void {
  const scanner = app.get(MetadataScanner);
  for (const wrapper of app.get(DiscoveryService).getControllers()) {
    const controller = wrapper.metatype as (new (...args: never[]) => object) | undefined;
    const prototype = controller?.prototype as Record<string, object> | undefined;
    if (!controller || !prototype) continue;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name];
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (method === undefined) continue; // not a route
      const spec = responseHeadersSpec(handler, controller);
      if (spec) {
        const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as object | undefined) ?? {};
        Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, responseHeaders: spec }, handler);
      }
      if (method === RequestMethod.POST) {
        // Another app of this process (tests) may have bound its own instance: replace it, keep the rest.
        const own = ((Reflect.getMetadata(INTERCEPTORS_METADATA, handler) as unknown[] | undefined) ?? []).filter(
          (i) => (i as object | undefined)?.constructor !== postInterceptor.constructor,
        );
        Reflect.defineMetadata(INTERCEPTORS_METADATA, [postInterceptor, ...own], handler);
      }
    }
  }
}
