import { createServer, Server } from 'node:http';
import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { QueueWorkers } from './common/queue/queue-workers';
import { RedisService } from './common/redis/redis.service';
import { unscopedSql } from './database/sql';

const CHECK_TIMEOUT_MS = 2000;

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

/** What `/health/ready` checks in a worker: its queue workers run and meet no error, PostgreSQL and Redis answer. */
async function readiness(app: INestApplicationContext): Promise<Record<string, { status: 'up' | 'down'; message?: string }>> {
  const check = async (what: string, probe: () => Promise<unknown>) => {
    try {
      await within(probe(), what);
      return { status: 'up' as const };
    } catch (err) {
      return { status: 'down' as const, message: (err as Error).message };
    }
  };
  const [database, redis] = await Promise.all([
    check('PostgreSQL', () => unscopedSql(app.get(DataSource), 'SELECT 1')),
    check('Redis', () => app.get(RedisService).client.ping()),
  ]);
  const queues = app.get(QueueWorkers, { strict: false });
  const failing = queues.failing;
  const workers = !queues.running
    ? { status: 'down' as const, message: 'stopped' }
    : failing
      ? { status: 'down' as const, message: failing }
      : { status: 'up' as const };
  return { database, redis, workers };
}

/**
 * The worker's health for a container's health check (WORKER_HEALTH_PORT): `GET /health/live` answers while
 * the process runs, `GET /health/ready` 200 when its queue workers run and PostgreSQL and Redis answer, 503
 * otherwise, in the shape of the API's probes. Nothing else is served.
 */
export function serveWorkerHealth(app: INestApplicationContext, host: string, port: number): Promise<Server> {
  const server = createServer((req, res) => {
    const answer = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || (path !== '/health/live' && path !== '/health/ready')) return answer(404, { status: 'not found' });
    if (path === '/health/live') return answer(200, { status: 'ok' });
    readiness(app).then(
      (info) => {
        const up = Object.values(info).every((c) => c.status === 'up');
        answer(up ? 200 : 503, { status: up ? 'ok' : 'error', info });
      },
      (err: Error) => answer(503, { status: 'error', error: err.message }),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.unref()));
  });
}
