import { Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { randomBytes } from 'node:crypto';
import type { Result } from 'ioredis';
import type { RateLimitWindow } from '../../config/app-config';
import { RedisService } from '../redis/redis.service';

/**
 * A true sliding window: one sorted set per subject holding a member per counted request, scored by Redis
 * server time in microseconds (so every API instance shares one clock) and kept for the subject's longest
 * window; a shorter window is a range of the same set, so a request is written once whatever the number of
 * windows. All windows are checked in one script, hence one round trip and no race between instances: every
 * window is checked first, and only when all have room is the request recorded, so a refused request uses
 * no quota. For a window it also answers the microseconds until it frees a request: the entry at rank
 * max(0, count - limit) in age order is the one whose leaving makes room for one more. That lookup is the
 * costly part, so it is made only where the answer is used: the windows with the fewest requests left (the
 * rate-limit headers describe the tightest one), the full ones (Retry-After), and every window on a read.
 *
 * KEYS[1]: the subject's sorted set. ARGV[1]: "1" to record, "0" to read only (no writes at all);
 * ARGV[2]: a member suffix unique to this call; then per window: its length in microseconds, its limit.
 * Answers { allowed (1/0), now (µs), then per window: count, microseconds until it frees a request or -1
 * when not computed }.
 */
export const SLIDING_WINDOW_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local key = KEYS[1]
local record = ARGV[1] == '1'
local n = (#ARGV - 2) / 2
local lengths, limits, counts = {}, {}, {}
local longest = 0
for i = 1, n do
  lengths[i] = tonumber(ARGV[2 * i + 1])
  limits[i] = tonumber(ARGV[2 * i + 2])
  if lengths[i] > longest then longest = lengths[i] end
end
-- Scores are above 2^31: format them as integers, as tostring would use an exponent.
local function since(length) return '(' .. string.format('%.0f', now - length) end
if record then redis.call('ZREMRANGEBYSCORE', key, '-inf', string.format('%.0f', now - longest)) end
local allowed = 1
for i = 1, n do
  if record and lengths[i] == longest then
    counts[i] = redis.call('ZCARD', key)
  else
    counts[i] = redis.call('ZCOUNT', key, since(lengths[i]), '+inf')
  end
  if counts[i] >= limits[i] then allowed = 0 end
end
if record and allowed == 1 then
  local nowText = string.format('%.0f', now)
  redis.call('ZADD', key, nowText, nowText .. ':' .. ARGV[2])
  redis.call('PEXPIRE', key, math.ceil(longest / 1000))
  for i = 1, n do counts[i] = counts[i] + 1 end
end
local fewestLeft = math.huge
for i = 1, n do fewestLeft = math.min(fewestLeft, limits[i] - counts[i]) end
local out = { allowed, now }
for i = 1, n do
  local count, limit = counts[i], limits[i]
  local frees = -1
  if not record or count >= limit or limit - count == fewestLeft then
    frees = 0
    if count > 0 then
      local rank = math.max(0, count - limit)
      local entry = redis.call('ZRANGEBYSCORE', key, since(lengths[i]), '+inf', 'WITHSCORES', 'LIMIT', rank, 1)
      if entry[2] then frees = tonumber(entry[2]) + lengths[i] - now end
    end
  end
  out[2 * i + 1] = count
  out[2 * i + 2] = frees
end
return out
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    slidingWindow(...args: (string | number)[]): Result<number[], Context>;
  }
}

export interface WindowCount {
  window: RateLimitWindow;
  /** Requests counted in the window, this one included when it was recorded. */
  count: number;
  /**
   * Milliseconds until the window frees a request; 0 when it is empty. Null when not computed: only for a
   * window that has more requests left than another and room for this one (it can't be the tightest).
   */
  freesInMs: number | null;
}

export interface SlidingWindowResult {
  allowed: boolean;
  /** Redis server time of the evaluation, in milliseconds. */
  nowMs: number;
  windows: WindowCount[];
}

/**
 * The rate limiter's Redis storage. `evaluate` serves our guard (all windows of a subject in one call);
 * `increment` makes the same storage usable as a @nestjs/throttler `ThrottlerStorage` (one window per call).
 */
@Injectable()
export class SlidingWindowStorage implements ThrottlerStorage {
  /** Unique per process; with a counter and the server time it makes every member unique. */
  private readonly instance = randomBytes(6).toString('hex');
  private sequence = 0;

  constructor(private readonly redis: RedisService) {
    // EVALSHA with a fallback to EVAL on NOSCRIPT (e.g. after a Redis restart), done by ioredis.
    redis.client.defineCommand('slidingWindow', { lua: SLIDING_WINDOW_LUA });
  }

  /** False while Redis is unreachable (a call would fail at once). */
  get available(): boolean {
    return this.redis.available;
  }

  /** Checks every window and, when `record` and all have room, counts the request in all of them. */
  async evaluate(subject: string, windows: readonly RateLimitWindow[], record: boolean): Promise<SlidingWindowResult> {
    const key = this.redis.key('rl', subject);
    const args: (string | number)[] = [record ? '1' : '0', `${this.instance}:${(this.sequence = (this.sequence + 1) % 1e9)}`];
    for (const w of windows) args.push(w.seconds * 1_000_000, w.limit);
    const reply = await this.redis.client.slidingWindow(1, key, ...args);
    return {
      allowed: reply[0] === 1,
      nowMs: Math.floor(reply[1] / 1000),
      windows: windows.map((window, i) => {
        const frees = reply[2 * i + 3];
        return { window, count: reply[2 * i + 2], freesInMs: frees < 0 ? null : frees / 1000 };
      }),
    };
  }

  /** @nestjs/throttler's contract: `ttl` and `blockDuration` in ms; times answered in seconds. */
  async increment(
    key: string,
    ttl: number,
    limit: number,
    _blockDuration: number,
    throttlerName: string,
  ): ReturnType<ThrottlerStorage['increment']> {
    // The sliding window blocks exactly until the entry that matters leaves; there is no separate block period.
    const window: RateLimitWindow = { name: 'second', seconds: ttl / 1000, limit };
    const result = await this.evaluate(`throttler:${throttlerName}:${key}`, [window], true);
    const [w] = result.windows;
    const seconds = Math.ceil((w.freesInMs ?? 0) / 1000); // computed: a single window is always the tightest
    return {
      totalHits: result.allowed ? w.count : w.count + 1,
      timeToExpire: seconds,
      isBlocked: !result.allowed,
      timeToBlockExpire: result.allowed ? 0 : Math.max(1, seconds),
    };
  }
}
