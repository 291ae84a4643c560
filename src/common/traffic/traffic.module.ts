import { Global, Module } from '@nestjs/common';
import { getStorageToken } from '@nestjs/throttler';
import { RateLimitInspector, UnauthenticatedRateLimit } from '../auth/rate-limit-inspector';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyStore } from './idempotency.store';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimiter } from './rate-limiter';
import { SlidingWindowStorage } from './sliding-window.storage';

/**
 * Traffic control: the sliding-window rate limiter (its guard is registered among the global guards by
 * AuthModule, to run right after ApiKeyGuard) and Idempotency-Key handling (its interceptor is registered
 * by AppModule, its onSend hook by app.factory.ts). The storage is also bound to @nestjs/throttler's
 * storage token, so a ThrottlerGuard used anywhere counts in the same Redis.
 */
@Global()
@Module({
  providers: [
    SlidingWindowStorage,
    RateLimiter,
    RateLimitGuard,
    IdempotencyStore,
    IdempotencyInterceptor,
    { provide: getStorageToken(), useExisting: SlidingWindowStorage },
    { provide: RateLimitInspector, useExisting: RateLimiter },
    { provide: UnauthenticatedRateLimit, useExisting: RateLimiter },
  ],
  exports: [
    IdempotencyInterceptor,
    RateLimiter,
    RateLimitGuard,
    RateLimitInspector,
    UnauthenticatedRateLimit,
    SlidingWindowStorage,
    getStorageToken(),
  ],
})
export class TrafficModule {}
