import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startApp } from '../helpers/app';
import { auditEntries } from '../helpers/audit';
import { NO_RATE_LIMITS } from '../helpers/patients';
import { useApp } from '../helpers/use-app';

/** A public page: limited per client IP (two requests an hour in this suite's apps). */
const PUBLIC_PAGE = '/api/v1/public/schedulers/nothing-here';

interface Sent {
  status: number;
}

/** One request over real HTTP, from `localAddress` (127.0.0.1 unless said), with the given headers. */
function send(app: NestFastifyApplication, path: string, headers: Record<string, string> = {}, localAddress = '127.0.0.1'): Promise<Sent> {
  const { port } = app.getHttpServer().address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, localAddress, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The statuses of `count` requests to the public page, each with the X-Forwarded-For `forwardedFor(i)` names. */
async function statuses(
  app: NestFastifyApplication,
  count: number,
  forwardedFor: (i: number) => string | undefined,
  localAddress?: string,
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const xff = forwardedFor(i);
    out.push((await send(app, PUBLIC_PAGE, xff ? { 'x-forwarded-for': xff } : {}, localAddress)).status);
  }
  return out;
}

describe('TRUST_PROXY: X-Forwarded-For names the client only through a trusted proxy', () => {
  const apps: NestFastifyApplication[] = [];
  let run = 0;
  const proxyEnv = (env: Record<string, string>): Record<string, string> => ({
    ...NO_RATE_LIMITS,
    RATE_LIMIT_IP_PER_SECOND: '0',
    RATE_LIMIT_IP_PER_HOUR: '2',
    // A prefix of each app's own: no other app's (or suite's) requests from these addresses count here.
    REDIS_PREFIX: `${process.env.REDIS_PREFIX}:proxy${++run}`,
    WORKERS: 'off',
    ...env,
  });
  async function listening(env: Record<string, string>): Promise<NestFastifyApplication> {
    const app = await startApp(proxyEnv(env));
    apps.push(app);
    await app.listen({ host: '127.0.0.1', port: 0 });
    return app;
  }
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  describe('TRUST_PROXY=127.0.0.1', () => {
    const suite = useApp(() => proxyEnv({ TRUST_PROXY: '127.0.0.1' }));
    // Over real HTTP: the peer address is what the trust decision reads.
    beforeAll(async () => {
      await suite.app.listen({ host: '127.0.0.1', port: 0 });
    });

    it('gives two clients behind the proxy a per-IP budget each', async () => {
      expect(await statuses(suite.app, 3, () => '203.0.113.1')).toEqual([404, 404, 429]);
      expect(await statuses(suite.app, 3, () => '203.0.113.2')).toEqual([404, 404, 429]);
    });

    it('takes the address the proxy appended, so that a client naming others in the header gains nothing', async () => {
      expect(await statuses(suite.app, 3, (i) => `198.51.100.${i + 1}, 203.0.113.3`)).toEqual([404, 404, 429]);
    });

    it("ignores the header from a peer that is not the trusted proxy: the peer's own budget", async () => {
      expect(await statuses(suite.app, 3, (i) => `203.0.113.${10 + i}`, '127.0.0.2')).toEqual([404, 404, 429]);
    });

    it("records the forwarded client in the audit log's ip", async () => {
      const id = randomUUID();
      const res = await send(suite.app, `/api/v1/patients/${id}`, {
        authorization: `Bearer ${suite.tenant.testKey}`,
        'x-forwarded-for': '198.51.100.77',
      });
      expect(res.status).toBe(404);
      const spoofed = await send(
        suite.app,
        `/api/v1/patients/${id}`,
        { authorization: `Bearer ${suite.tenant.testKey}`, 'x-forwarded-for': '198.51.100.78' },
        '127.0.0.2',
      );
      expect(spoofed.status).toBe(404);
      const entries = await auditEntries(suite.app, suite.tenant.testKey, `resourceId=${id}`, 2);
      expect(entries.map((e) => e.ip)).toEqual(['127.0.0.2', '198.51.100.77']);
    });
  });

  describe('TRUST_PROXY unset (off)', () => {
    it('counts every request against the peer, whatever X-Forwarded-For says', async () => {
      const app = await listening({});
      expect(await statuses(app, 3, (i) => `203.0.113.${20 + i}`)).toEqual([404, 404, 429]);
    });
  });
});
