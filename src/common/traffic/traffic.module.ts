import { Global, Module } from '@nestjs/common';
import { getStorageToken } from '@nestjs/throttler';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RateLimitInspector, UnauthenticatedRateLimit } from '../auth/rate-limit-inspector';
import { IdempotencyKeyEntity } from './entities/idempotency-key.entity';
import { IdempotencyKeysRepository } from './idempotency-keys.repository';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimiter } from './rate-limiter';
import { SlidingWindowStorage } from './sliding-window.storage';

/**
 * Traffic control: the sliding-window rate limiter (its guard is registered among the global guards by
 * AuthModule, to run right after ApiKeyGuard) and Idempotency-Key handling (its interceptor is registered
 * by AppModule, its onSend hook by app.factory.ts; its records live in PostgreSQL). The storage is also bound to @nestjs/throttler's
 * storage token, so a ThrottlerGuard used anywhere counts in the same Redis.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([IdempotencyKeyEntity])],
  providers: [
    SlidingWindowStorage,
    RateLimiter,
    RateLimitGuard,
    IdempotencyKeysRepository,
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
