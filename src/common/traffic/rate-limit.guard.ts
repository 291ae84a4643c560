import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RateLimiter } from './rate-limiter';

const SKIP_RATE_LIMIT = 'skipRateLimit';
/** Per handler, read from its metadata once: whether the route is exempt. */
const skipped = new WeakMap<object, boolean>();

/** Not rate-limited: health checks and metrics, which orchestrators and scrapers poll. */
export const SkipRateLimit = (): MethodDecorator & ClassDecorator => SetMetadata(SKIP_RATE_LIMIT, true);

/**
 * Global guard, second in line after ApiKeyGuard (see common/auth/guards.ts): a request with a valid key
 * is counted against the key, a public route's request against the client IP. Requests whose key is
 * refused never get here; ApiKeyGuard counts them against the IP before answering 401.
 *
 * Not @nestjs/throttler's ThrottlerGuard: that guard calls the storage once per named throttler, which
 * would be three round trips and would let a request refused by the hour window still consume the second
 * window. Ours makes one atomic call for all windows; the storage still implements ThrottlerStorage.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    let skip = skipped.get(handler);
    if (skip === undefined) {
      skip = this.reflector.getAllAndOverride<boolean | undefined>(SKIP_RATE_LIMIT, [handler, context.getClass()]) === true;
      skipped.set(handler, skip);
    }
    if (skip) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const subject = request.auth ? this.limiter.forKey(request.auth) : this.limiter.forIp(request.ip);
    await this.limiter.hit(subject, http.getResponse<FastifyReply>());
    return true;
  }
}
