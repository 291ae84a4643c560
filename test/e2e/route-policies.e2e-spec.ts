import { ROUTE_POLICY, RoutePolicy, scopesWhenSentText } from '../../src/common/auth/route-policy.decorator';
import { isIdempotent } from '../../src/common/idempotency/idempotent.decorator';
import { useApp } from '../helpers/use-app';
import { listRoutes } from '../helpers/routes';

/** Public POSTs that keep Idempotency-Keys per the record they write to (a booking page), having no API key. */
const IDEMPOTENT_PUBLIC = new Set(['/api/v1/public/schedulers/:id/book']);

/**
 * Every route with who may call it, and whether it honours an Idempotency-Key. A change here is a change
 * of the API's access policy, and shows up in review as a snapshot diff.
 */
describe('Route policies', () => {
  const suite = useApp({ WORKERS: 'off' });

  it('every route declares a policy, and the table matches the reviewed snapshot', () => {
    const rows: string[] = [];
    for (const { method, url, controller, handler } of listRoutes(suite.app)) {
      const classPolicy = Reflect.getMetadata(ROUTE_POLICY, controller) as RoutePolicy | undefined;
      const policy = (Reflect.getMetadata(ROUTE_POLICY, handler) as RoutePolicy | undefined) ?? classPolicy;
      expect([`${method} ${url}`, policy]).toEqual([`${method} ${url}`, expect.anything()]);
      const also = scopesWhenSentText(policy!);
      const who = policy!.public
        ? 'public'
        : `scope=${policy!.scope ?? '-'}${also ? ` (+ ${also})` : ''} roles=${policy!.roles?.join(',') ?? 'any'}`;
      // Every authenticated POST takes an Idempotency-Key, and of the public routes only those that name whom to keep it for.
      const idempotent = isIdempotent(handler);
      expect([`${method} ${url}`, idempotent]).toEqual([
        `${method} ${url}`,
        method === 'POST' && (!policy!.public || IDEMPOTENT_PUBLIC.has(url)),
      ]);
      rows.push(`${method.padEnd(6)} ${url.padEnd(50)} ${who}${idempotent ? ' idempotent' : ''}`);
    }
    expect(rows.sort()).toMatchSnapshot();
  });
});
