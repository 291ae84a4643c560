import type { FastifyInstance } from 'fastify';
import type { Authenticator } from '../auth/auth.types';
import type { RateLimiter } from './rate-limiter';

/**
 * A request that matches no route is answered 404 by Nest's not-found handler, which no guard precedes; so
 * is an OPTIONS request, which the CORS plugin's catch-all route answers (a preflight) or hands to that
 * handler (src/common/http/responses/cors.ts). Both are traffic all the same (and every /api/v1 response carries the
 * rate-limit fields), so this onRequest hook counts them: against the key when it is
 * valid, else against the client IP (a browser's preflight never carries a key). Over the limit it answers
 * 429 instead.
 */
export function limitUnmatchedRoutes(fastify: FastifyInstance, limiter: RateLimiter, authenticator: Authenticator): void {
  fastify.addHook('onRequest', async (request, reply) => {
    if (!request.is404 && request.method !== 'OPTIONS') return;
    // Any refusal (no key, a wrong one, even a database outage) leaves the request to the per-IP count.
    const auth = await authenticator.authenticate(request.headers.authorization).catch(() => undefined);
    await limiter.hit(auth ? limiter.forKey(auth) : limiter.forIp(request.ip), reply);
  });
}
