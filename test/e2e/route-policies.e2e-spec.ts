import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ROUTE_POLICY, RoutePolicy, scopesWhenSentText } from '../../src/common/auth/route-policy.decorator';
import { startApp } from '../helpers/app';
import { listRoutes } from '../helpers/routes';

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
    for (const { method, url, controller, handler } of listRoutes(app)) {
      const classPolicy = Reflect.getMetadata(ROUTE_POLICY, controller) as RoutePolicy | undefined;
      const policy = (Reflect.getMetadata(ROUTE_POLICY, handler) as RoutePolicy | undefined) ?? classPolicy;
      expect([`${method} ${url}`, policy]).toEqual([`${method} ${url}`, expect.anything()]);
      const also = scopesWhenSentText(policy!);
      const who = policy!.public
        ? 'public'
        : `scope=${policy!.scope ?? '-'}${also ? ` (+ ${also})` : ''} roles=${policy!.roles?.join(',') ?? 'any'}`;
      rows.push(`${method.padEnd(6)} ${url.padEnd(50)} ${who}`);
    }
    expect(rows.sort()).toMatchSnapshot();
  });
});
