import { Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { randomBytes } from 'node:crypto';
import type { Result } from 'ioredis';
import type { RateLimitWindow } from '../../config/app-config';
import { RedisService } from '../redis/redis.service';

/**
 * A true sliding window: one sorted set per (subject, window) holding a member per counted request, scored
 * by Redis server time in microseconds (so every API instance shares one clock). All windows of a subject
 * are checked in one script, hence one round trip and no race between instances: every window is checked
 * first, and only when all have room is the request recorded in all of them, so a refused request uses no
 * quota. For each window it answers the count and the microseconds until the window frees a request: the
 * entry at rank max(0, count - limit) in age order is the one whose leaving makes room for one more.
 *
 * KEYS: one sorted set per window. ARGV[1]: "1" to record, "0" to read only (no writes at all);
 * ARGV[2]: a member suffix unique to this call; then per window: its length in microseconds, its limit.
 * Answers { allowed (1/0), now (µs), then per window: count, microseconds until it frees a request }.
 */
const SLIDING_WINDOW_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local record = ARGV[1] == '1'
local n = #KEYS
local counts = {}
local allowed = 1
for i = 1, n do
  local window = tonumber(ARGV[2 * i + 1])
  local limit = tonumber(ARGV[2 * i + 2])
  local from = string.format('%.0f', now - window)
  local count
  if record then
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', from)
    count = redis.call('ZCARD', KEYS[i])
  else
    count = redis.call('ZCOUNT', KEYS[i], '(' .. from, '+inf')
  end
  counts[i] = count
  if count >= limit then allowed = 0 end
end
local out = { allowed, now }
local nowText = string.format('%.0f', now)
for i = 1, n do
  local window = tonumber(ARGV[2 * i + 1])
  local limit = tonumber(ARGV[2 * i + 2])
  local count = counts[i]
  if record and allowed == 1 then
    redis.call('ZADD', KEYS[i], nowText, nowText .. ':' .. ARGV[2])
    redis.call('PEXPIRE', KEYS[i], math.ceil(window / 1000))
    count = count + 1
  end
  local frees = 0
  if count > 0 then
    local rank = 0
    if count >= limit then rank = count - limit end
    local entry = redis.call('ZRANGEBYSCORE', KEYS[i], '(' .. string.format('%.0f', now - window), '+inf', 'WITHSCORES', 'LIMIT', rank, 1)
    if entry[2] then frees = tonumber(entry[2]) + window - now end
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
  /** Milliseconds until the window frees a request; 0 when it is empty. */
  freesInMs: number;
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

  /** Checks every window and, when `record` and all have room, counts the request in all of them. */
  async evaluate(subject: string, windows: readonly RateLimitWindow[], record: boolean): Promise<SlidingWindowResult> {
    // A hash tag keeps a subject's keys in one cluster slot, as a multi-key script needs.
    const keys = windows.map((w) => this.redis.key('rl', `{${subject}}`, w.name));
    const args: (string | number)[] = [record ? '1' : '0', `${this.instance}:${(this.sequence = (this.sequence + 1) % 1e9)}`];
    for (const w of windows) args.push(w.seconds * 1_000_000, w.limit);
    const reply = await this.redis.client.slidingWindow(keys.length, ...keys, ...args);
    return {
      allowed: reply[0] === 1,
      nowMs: Math.floor(reply[1] / 1000),
      windows: windows.map((window, i) => ({ window, count: reply[2 * i + 2], freesInMs: reply[2 * i + 3] / 1000 })),
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
    const seconds = Math.ceil(w.freesInMs / 1000);
    return {
      totalHits: result.allowed ? w.count : w.count + 1,
      timeToExpire: seconds,
      isBlocked: !result.allowed,
      timeToBlockExpire: result.allowed ? 0 : Math.max(1, seconds),
    };
  }
}
