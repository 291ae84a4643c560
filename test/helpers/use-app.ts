import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { client, createTenant, startApp, TestTenant } from './app';

/** The suite's app and first tenant, valid inside tests and hooks (they are set in beforeAll). */
export interface AppFixture {
  readonly app: NestFastifyApplication;
  readonly tenant: TestTenant;
  /** A client of the app with `key`: by default the tenant's test key. */
  api(key?: string): ReturnType<typeof client>;
  /** Runs in afterAll, before the app closes (last registered first): receivers, child processes. */
  onClose(cleanUp: () => unknown): void;
}

/**
 * One real app (on the run's database and Redis, `env` overriding variables for it) and one tenant for
 * the enclosing describe block, started in beforeAll and closed in afterAll:
 *
 *   const suite = useApp({ ...NO_RATE_LIMITS, WORKERS: 'off' });
 *   it('…', async () => expect((await suite.api().get('/api/v1/me')).status).toBe(200));
 *
 * `env` may be a function, read when the app starts: for variables that name something an earlier
 * beforeAll started (`useApp(() => ({ SMTP_URL: receiver.url }))`). Hooks run in the order they are
 * declared, so an afterAll declared after useApp runs once the app has closed.
 */
export function useApp(env: Record<string, string> | (() => Record<string, string>) = {}): AppFixture {
  let app: NestFastifyApplication | undefined;
  let tenant: TestTenant | undefined;
  const cleanUps: (() => unknown)[] = [];
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useApp: the app starts in beforeAll; read it inside tests and hooks');
    return value;
  };
  beforeAll(async () => {
    app = await startApp(typeof env === 'function' ? env() : env);
    tenant = await createTenant(app);
  });
  afterAll(async () => {
    for (const cleanUp of cleanUps.reverse()) await cleanUp();
    await app?.close();
  });
  return {
    get app() {
      return started(app);
    },
    get tenant() {
      return started(tenant);
    },
    api: (key?: string) => client(started(app), key ?? started(tenant).testKey),
    onClose: (cleanUp) => void cleanUps.push(cleanUp),
  };
}
