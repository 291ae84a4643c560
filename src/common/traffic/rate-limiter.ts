import { Injectable, Logger } from '@nestjs/common';
import { normalizeIp } from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig, RateLimitWindow } from '../../config/app-config';
import type { AuthContext } from '../auth/auth.types';
import { RateLimitBudget, RateLimitInspector, UnauthenticatedRateLimit } from '../auth/rate-limit-inspector';
import { LocalSlidingWindow } from './local-sliding-window';
import { rateLimitHeaders, retryAfterSeconds, WindowState } from './rate-limit-headers';
import { RateLimitedException } from './rate-limit.exceptions';
import { SlidingWindowResult, SlidingWindowStorage } from './sliding-window.storage';

/** Who a request is counted against, and that subject's windows (empty: not limited). */
export interface RateLimitSubject {
  id: string;
  windows: RateLimitWindow[];
}

function states(result: SlidingWindowResult): WindowState[] {
  return result.windows.map((w) => ({ window: w.window, remaining: Math.max(0, w.window.limit - w.count), resetMs: w.freesInMs }));
}

/**
 * The rate-limit policy (docs/api.md, Rate limits): an API key is counted with its mode's windows, anything
 * without a valid key with the per-IP windows. One Redis round trip per request; none when every window
 * of the subject is 0 (unlimited). Redis unreachable: each instance counts in its own memory with the same
 * limits (LocalSlidingWindow) until Redis answers again, so traffic is never unlimited and requests that
 * need nothing else from Redis keep being served, without waiting on it.
 */
@Injectable()
export class RateLimiter implements RateLimitInspector, UnauthenticatedRateLimit {
  private readonly logger = new Logger(RateLimiter.name);
  private readonly local = new LocalSlidingWindow();
  private counting: 'shared' | 'local' = 'shared';

  constructor(
    private readonly storage: SlidingWindowStorage,
    private readonly config: AppConfig,
  ) {}

  forKey(auth: Pick<AuthContext, 'apiKeyId' | 'mode'>): RateLimitSubject {
    return { id: `key:${auth.apiKeyId}`, windows: this.config.rateLimits[auth.mode] };
  }

  forIp(ip: string): RateLimitSubject {
    // IPv6 clients are counted per /64, since one host usually holds a whole /64.
    return { id: `ip:${normalizeIp(ip)}`, windows: this.config.rateLimits.ip };
  }

  /**
   * Counts one request: sets the rate-limit headers on the reply, and throws 429 (with Retry-After for
   * the window that frees a request last) when a window is full, in which case nothing is counted.
   */
  async hit(subject: RateLimitSubject, reply: FastifyReply): Promise<void> {
    if (subject.windows.length === 0) return;
    const result = await this.evaluate(subject, true);
    const windowStates = states(result);
    void reply.headers(rateLimitHeaders(windowStates, result.nowMs));
    if (result.allowed) return;
    // Every full window's wait is computed; the one that frees a request last decides Retry-After.
    const full = result.windows.filter((w) => w.count >= w.window.limit);
    const blocking = full.reduce((last, w) => ((w.freesInMs ?? 0) > (last.freesInMs ?? 0) ? w : last));
    throw new RateLimitedException(blocking.window, retryAfterSeconds(blocking.freesInMs ?? 0));
  }

  async limitByIp(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    await this.hit(this.forIp(request.ip), reply);
  }

  /** The key's budget per window, read without counting anything. */
  async budget(auth: AuthContext): Promise<RateLimitBudget[]> {
    const subject = this.forKey(auth);
    if (subject.windows.length === 0) return [];
    const result = await this.evaluate(subject, false);
    return states(result).map((s) => ({
      window: s.window.name,
      limit: s.window.limit,
      remaining: s.remaining,
      reset: Math.ceil((result.nowMs + (s.resetMs ?? 0)) / 1000), // a read computes every window's
    }));
  }

  private async evaluate(subject: RateLimitSubject, record: boolean): Promise<SlidingWindowResult> {
    if (this.storage.available) {
      try {
        const shared = await this.storage.evaluate(subject.id, subject.windows, record);
        this.switchTo('shared');
        return shared;
      } catch (err) {
        this.switchTo('local', (err as Error).message);
      }
    } else {
      this.switchTo('local', 'Redis is unreachable');
    }
    return this.local.evaluate(subject.id, subject.windows, record);
  }

  /** One line when the counting moves between Redis and this instance's memory, not one per request. */
  private switchTo(counting: 'shared' | 'local', why?: string): void {
    if (this.counting === counting) return;
    this.counting = counting;
    if (counting === 'local') this.logger.warn(`rate limits counted per instance until Redis answers: ${why}`);
    else this.logger.log('rate limits counted in Redis again');
  }
}
