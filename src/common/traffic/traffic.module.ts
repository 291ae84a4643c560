import { Global, Module } from '@nestjs/common';
import { getStorageToken } from '@nestjs/throttler';
import { RateLimitInspector, UnauthenticatedRateLimit } from '../auth/rate-limit-inspector';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimiter } from './rate-limiter';
import { SlidingWindowStorage } from './sliding-window.storage';

/**
 * Traffic control: the sliding-window rate limiter (its guard is registered among the global guards by
 * AuthModule, to run right after ApiKeyGuard). The storage is also bound to @nestjs/throttler's storage
 * token, so a ThrottlerGuard used anywhere counts in the same Redis.
 */
@Global()
@Module({
  providers: [
    SlidingWindowStorage,
    RateLimiter,
    RateLimitGuard,
    { provide: getStorageToken(), useExisting: SlidingWindowStorage },
    { provide: RateLimitInspector, useExisting: RateLimiter },
    { provide: UnauthenticatedRateLimit, useExisting: RateLimiter },
  ],
  exports: [RateLimiter, RateLimitGuard, RateLimitInspector, UnauthenticatedRateLimit, SlidingWindowStorage, getStorageToken()],
})
export class TrafficModule {}
