import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

const EXCLUDED_FROM_PREFIX = ['/health/live', '/health/ready', '/metrics'];

const join = (...parts: (string | undefined)[]): string =>
  '/' +
  parts
    .filter((p): p is string => !!p && p !== '/')
    .map((p) => p.replace(/^\/|\/$/g, ''))
    .join('/');

export interface AppRoute {
  method: string;
  /** As served, with Nest's `:param` placeholders, e.g. `/api/v1/patients/:id`. */
  url: string;
  controller: new (...args: unknown[]) => unknown;
  handler: (...args: unknown[]) => unknown;
}

/** Every route of every controller of the app, read from Nest's metadata (not from the OpenAPI document). */
export function listRoutes(app: NestFastifyApplication): AppRoute[] {
  const routes: AppRoute[] = [];
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as AppRoute['controller'] | null;
      if (!controller) continue;
      const base = Reflect.getMetadata(PATH_METADATA, controller) as string | undefined;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name];
        if (typeof handler !== 'function' || name === 'constructor') continue;
        const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
        if (path === undefined) continue;
        const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
        let url = join(base, path).replace(/\/$/, '') || '/';
        if (!EXCLUDED_FROM_PREFIX.includes(url) && !url.startsWith('/api/docs')) url = join('api/v1', url);
        routes.push({ method, url, controller, handler: handler as AppRoute['handler'] });
      }
    }
  }
  return routes;
}
