import { IsOptional, Matches } from 'class-validator';

/** Redis: queues, rate limits, idempotency records and the key cache's evictions. */
export class RedisEnv {
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'must be a redis:// URL' })
  REDIS_URL?: string = undefined;

  @IsOptional()
  @Matches(/^[A-Za-z0-9_.:-]{1,64}$/, { message: 'must be 1-64 characters of letters, digits, _ . : -' })
  REDIS_PREFIX = 'pm';
}

export interface RedisSettings {
  /** Unset: start-up runs a local redis-server and fills it in. */
  url?: string;
  prefix: string;
}

export function redisSettings(vars: RedisEnv): RedisSettings {
  return { url: vars.REDIS_URL, prefix: vars.REDIS_PREFIX };
}
