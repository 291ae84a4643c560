import { Injectable } from '@nestjs/common';
import type { Result } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../config/app-config';
import { RedisService } from '../redis/redis.service';
import type { IdempotencyRecord, StoredResponse } from './idempotency';

/** GET, and SET with a lock TTL only when absent: a claim and the look-up of a previous one in one step. */
const CLAIM_LUA = `
local current = redis.call('GET', KEYS[1])
if current then return current end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
`;

/** Replaces the claim with the response, only if the claim is still ours (it may have expired and been retaken). */
const COMPLETE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
`;

/** Drops the claim, only if it is still ours. */
const RELEASE_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    idempotencyClaim(key: string, marker: string, lockMs: number): Result<string | null, Context>;
    idempotencyComplete(key: string, marker: string, record: string, ttlMs: number): Result<number, Context>;
    idempotencyRelease(key: string, marker: string): Result<number, Context>;
  }
}

/** A claim held by the request that runs; `marker` is the exact value it wrote. */
export interface IdempotencyClaim {
  redisKey: string;
  marker: string;
}

export type ClaimOutcome = { claimed: IdempotencyClaim } | { existing: IdempotencyRecord };

/** Idempotency records in Redis, shared by every API instance. */
@Injectable()
export class IdempotencyStore {
  constructor(
    private readonly redis: RedisService,
    private readonly config: AppConfig,
  ) {
    redis.client.defineCommand('idempotencyClaim', { numberOfKeys: 1, lua: CLAIM_LUA });
    redis.client.defineCommand('idempotencyComplete', { numberOfKeys: 1, lua: COMPLETE_LUA });
    redis.client.defineCommand('idempotencyRelease', { numberOfKeys: 1, lua: RELEASE_LUA });
  }

  /** Claims the key for this request, or answers what is already there (running or done). */
  async claim(scope: string[], fingerprint: string): Promise<ClaimOutcome> {
    const redisKey = this.redis.key(...scope);
    const record: IdempotencyRecord = { state: 'running', fingerprint, token: randomUUID() };
    const marker = JSON.stringify(record);
    const current = await this.redis.client.idempotencyClaim(redisKey, marker, this.config.idempotency.lockMs);
    if (current === null) return { claimed: { redisKey, marker } };
    return { existing: JSON.parse(current) as IdempotencyRecord };
  }

  async complete(claim: IdempotencyClaim, fingerprint: string, response: StoredResponse): Promise<void> {
    const record: IdempotencyRecord = { state: 'done', fingerprint, response };
    await this.redis.client.idempotencyComplete(claim.redisKey, claim.marker, JSON.stringify(record), this.config.idempotency.ttlMs);
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    await this.redis.client.idempotencyRelease(claim.redisKey, claim.marker);
  }
}
