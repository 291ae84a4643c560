import { INestApplication, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';
import { isIdempotent } from '../../idempotency/idempotent.decorator';
import { ResponseHeadersSpec, responseHeadersSpec } from '../responses/response-headers';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set by bindRoutes from the route's @Created/@Accepted/@WithETag/@NoStore; applied by route hooks. */
    responseHeaders?: ResponseHeadersSpec;
    /** Set by bindRoutes on an @Idempotent() route, whose answers a hook of its own keeps (addIdempotencyHooks). */
    idempotent?: boolean;
  }
}

const BODY_METHODS = [RequestMethod.POST, RequestMethod.PUT, RequestMethod.PATCH];

/** Whether a handler takes the request body (`@Body()`). */
function declaresBody(controller: object, name: string): boolean {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) as Record<string, unknown> | undefined) ?? {};
  return Object.keys(args).some((key) => key.split(':')[0] === String(RouteParamtypes.BODY));
}

/**
 * Decides once, at start-up, which route hooks each route gets, instead of every request of every route
 * asking: the route's response-headers spec, whether it is @Idempotent() and whether it takes no body (a
 * POST, PUT or PATCH without @Body, refuseBodies) go into its Fastify route config, where app.factory.ts
 * turns them into hooks of that route only. Call before `app.init()`, which
 * registers the routes.
 */
export function bindRoutes(app: INestApplication): void {
  const scanner = new MetadataScanner();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | undefined | null;
      const prototype = controller?.prototype as Record<string, object> | undefined;
      if (!controller || !prototype) continue;
      for (const name of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue; // not a route
        const responseHeaders = responseHeadersSpec(handler, controller);
        const idempotent = isIdempotent(handler);
        const noBody = BODY_METHODS.includes(method) && !declaresBody(controller, name);
        if (!responseHeaders && !idempotent && !noBody) continue;
        const config = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as object | undefined) ?? {};
        Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...config, responseHeaders, idempotent, noBody }, handler);
      }
    }
  }
}
