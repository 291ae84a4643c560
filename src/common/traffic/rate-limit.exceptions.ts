import type { RateLimitWindow } from '../../config/app-config';
import { ApiException } from '../http/errors/problem';
import { rateLimitDetail } from './rate-limit-headers';

export class RateLimitedException extends ApiException {
  constructor(window: RateLimitWindow, retryAfter: number) {
    super(
      429,
      'rate_limited',
      'Too many requests',
      rateLimitDetail(window, retryAfter),
      { window: window.name, limit: window.limit, retryAfter },
      { 'retry-after': String(retryAfter) },
    );
  }
}
