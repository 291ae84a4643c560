import { Global, Module } from '@nestjs/common';
import { RateLimitInspector } from '../auth/rate-limit-inspector';
import { RateLimiter } from './rate-limiter';

@Global()
@Module({
  providers: [RateLimiter, { provide: RateLimitInspector, useExisting: RateLimiter }],
  exports: [RateLimiter, RateLimitInspector],
})
export class TrafficModule {}
