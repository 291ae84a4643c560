import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../auth/auth.types';
import { RateLimitBudget, RateLimitInspector } from '../auth/rate-limit-inspector';

@Injectable()
export class RateLimiter extends RateLimitInspector {
  budget(_auth: AuthContext): Promise<RateLimitBudget[]> {
    return Promise.resolve([]);
  }
}
