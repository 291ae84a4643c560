import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ROUTE_POLICY, RoutePolicy } from '../../src/common/auth/route-policy.decorator';
import { startApp } from '../helpers/app';

const EXCLUDED_FROM_PREFIX = ['/health/live', '/health/ready', '/metrics'];

const join = (...parts: (string | undefined)[]): string =>
  '/' +
  parts
    .filter((p): p is string => !!p && p !== '/')
    .map((p) => p.replace(/^\/|\/$/g, ''))
    .join('/');

/**
 * Every route with who may call it. A change here is a change of the API's access policy, and shows up
 * in review as a snapshot diff. Contract section 2 is the source.
 */
describe('Route policies', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    app = await startApp({ WORKERS: 'off' });
  });
  afterAll(() => app.close());

  it('every route declares a policy, and the table matches the reviewed snapshot', () => {
    const rows: string[] = [];
    for (const module of app.get(ModulesContainer).values()) {
      for (const wrapper of module.controllers.values()) {
        const controller = wrapper.metatype as (new (...args: unknown[]) => unknown) | null;
        if (!controller) continue;
        const base = Reflect.getMetadata(PATH_METADATA, controller) as string | undefined;
        const classPolicy = Reflect.getMetadata(ROUTE_POLICY, controller) as RoutePolicy | undefined;
        for (const name of Object.getOwnPropertyNames(controller.prototype)) {
          const handler = (controller.prototype as Record<string, unknown>)[name];
          if (typeof handler !== 'function' || name === 'constructor') continue;
          const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
          if (path === undefined) continue;
          const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
          let url = join(base, path).replace(/\/$/, '') || '/';
          if (!EXCLUDED_FROM_PREFIX.includes(url) && !url.startsWith('/api/docs')) url = join('api/v1', url);
          const policy = (Reflect.getMetadata(ROUTE_POLICY, handler) as RoutePolicy | undefined) ?? classPolicy;
          expect([`${method} ${url}`, policy]).toEqual([`${method} ${url}`, expect.anything()]);
          const who = policy!.public ? 'public' : `scope=${policy!.scope ?? '-'} roles=${policy!.roles?.join(',') ?? 'any'}`;
          rows.push(`${method.padEnd(6)} ${url.padEnd(50)} ${who}`);
        }
      }
    }
    expect(rows.sort()).toMatchSnapshot();
  });
});
