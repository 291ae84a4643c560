import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { getQueueToken } from '@nestjs/bullmq';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { AppConfig } from '../../config/app-config';
import { ApiException, PROBLEM_CONTENT_TYPE, problemOf } from '../http/errors/problem';
import { RateLimitedException } from '../traffic/rate-limit.exceptions';
import { RateLimiter } from '../traffic/rate-limiter';
import { QueueName } from './queues';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * Mounts bull-board at /admin/queues for internal teams, only when QUEUE_DASHBOARD_PASSWORD is set (else
 * the path is an unknown route: 404), behind HTTP Basic auth. Outside /api/v1 and without API keys: it
 * shows every tenant's jobs, so it is an operator's tool, read-only unless QUEUE_DASHBOARD_READ_ONLY=false.
 * A wrong or missing password counts against the client IP's rate limit, so guessing runs into 429s.
 */
export async function mountQueueDashboard(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const { password, username, readOnly } = config.queueDashboard;
  if (!password) return;
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: Object.values(QueueName).map(
      (name) => new BullMQAdapter(app.get<Queue>(getQueueToken(name), { strict: false }), { readOnlyMode: readOnly }),
    ),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'Practice API queues' } },
  });
  const limiter = app.get(RateLimiter);
  const expected = digest(`${username}:${password}`);
  await app.register(async (scope: FastifyInstance) => {
    // In this plugin's scope only: the hook guards the dashboard's routes and nothing else.
    scope.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      if (timingSafeEqual(digest(basicCredentials(request.headers.authorization)), expected)) return;
      let refusal: ApiException = problemOf(
        'invalid_credentials',
        'The queue dashboard needs its username and password',
        {},
        {
          'www-authenticate': 'Basic realm="Queue dashboard", charset="UTF-8"',
        },
      );
      try {
        await limiter.hit(limiter.forIp(request.ip), reply);
      } catch (err) {
        if (!(err instanceof RateLimitedException)) throw err;
        refusal = err;
      }
      const { code, title, detail, extensions } = refusal;
      return reply
        .code(refusal.getStatus())
        .headers(refusal.headers)
        .type(PROBLEM_CONTENT_TYPE)
        .send({ type: 'about:blank', status: refusal.getStatus(), code, title, detail, requestId: request.id, ...extensions });
    });
    await scope.register(serverAdapter.registerPlugin(), { prefix: QUEUE_DASHBOARD_PATH });
  });
}

/** `user:password` of a Basic Authorization header, or '' (never equal to the expected digest's input). */
function basicCredentials(header: string | undefined): string {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  return match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
}

/** Equal-length digests, so the comparison takes the same time whatever was sent. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
