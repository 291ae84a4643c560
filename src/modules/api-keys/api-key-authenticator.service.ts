import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InvalidApiKeyException, MissingApiKeyException } from '../../common/auth/auth.exceptions';
import { API_KEY_FORMAT, hashApiKey } from '../../common/auth/api-key-secret';
import { AuthContext, Authenticator } from '../../common/auth/auth.types';
import { RedisService } from '../../common/redis/redis.service';
import { clock } from '../../common/time/clock';
import { AppConfig } from '../../config/app-config';
import { ApiKeysRepository } from './api-keys.repository';

const LAST_USE_FLUSH_MS = 15_000;
const MAX_CACHED_KEYS = 10_000;
const REVOKED_CHANNEL = 'api-keys:revoked';
const EVICTED_CHANNEL = 'api-keys:evicted';
/** How long a revocation waits for every instance to confirm; past it, the slow one is logged. */
const EVICTION_ACK_TIMEOUT_MS = 2_000;

interface PendingEviction {
  acks: number;
  expected: number;
  done: () => void;
}

interface CachedKey {
  auth: AuthContext;
  revoked: boolean;
  cachedAt: number;
}

/**
 * Turns an Authorization header into an AuthContext. A key seen recently costs nothing (no query, no Redis
 * call); otherwise one indexed query. A revocation is published on Redis, and the revoking request does
 * not answer until every subscribed instance has confirmed it evicted the key, so the key fails on the
 * very next request everywhere. An instance whose subscription is down does not trust its cache until it
 * is back (and then clears it). Last-use times are buffered and written in batches.
 */
@Injectable()
export class ApiKeyAuthenticator extends Authenticator implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ApiKeyAuthenticator.name);
  private readonly cache = new Map<string, CachedKey>();
  /** Last use per key id, in epoch ms (a number per request, not a Date: less garbage on the hot path). */
  private lastUse = new Map<string, number>();
  private flushTimer?: NodeJS.Timeout;
  private readonly pendingEvictions = new Map<string, PendingEviction>();

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly redis: RedisService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  async onModuleInit(): Promise<void> {
    await this.redis.subscribe(
      REVOKED_CHANNEL,
      (message) => void this.onRevoked(message),
      () => this.cache.clear(),
    );
    await this.redis.subscribe(EVICTED_CHANNEL, (evictionId) => this.onEvicted(evictionId));
    this.flushTimer = setInterval(() => void this.flushLastUse(), LAST_USE_FLUSH_MS);
    this.flushTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushLastUse();
  }

  async authenticate(header: string | undefined): Promise<AuthContext> {
    if (!header || !header.trim()) throw new MissingApiKeyException();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw new MissingApiKeyException();
    const key = match[1];
    if (!API_KEY_FORMAT.test(key)) throw new InvalidApiKeyException('The API key is malformed');
    const hash = hashApiKey(key);

    const entry = this.cached(hash) ?? (await this.load(hash));
    if (!entry || entry.revoked) throw new InvalidApiKeyException();
    if (entry.auth.expiresAt && entry.auth.expiresAt.getTime() <= clock.nowMs()) {
      throw new InvalidApiKeyException('The API key has expired');
    }
    this.lastUse.set(entry.auth.apiKeyId, clock.nowMs());
    return entry.auth;
  }

  /**
   * Makes every instance forget a key the database now says is revoked, and waits (up to a bound) until
   * each subscribed instance has confirmed.
   */
  async evict(keyHash: string): Promise<void> {
    this.cache.delete(keyHash);
    const evictionId = randomUUID();
    let done!: () => void;
    const confirmed = new Promise<void>((resolve) => (done = resolve));
    const pending: PendingEviction = { acks: 0, expected: Number.POSITIVE_INFINITY, done };
    this.pendingEvictions.set(evictionId, pending);
    let timer: NodeJS.Timeout | undefined;
    try {
      try {
        pending.expected = await this.redis.publish(REVOKED_CHANNEL, JSON.stringify({ keyHash, evictionId }));
      } catch {
        // Redis is unreachable (the call fails at once): no instance's subscription is up, and an instance
        // trusts no cached key until its subscription is back (then it clears its cache), so the key
        // already fails everywhere.
        return;
      }
      if (pending.acks >= pending.expected) return;
      const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), EVICTION_ACK_TIMEOUT_MS)));
      if (await Promise.race([confirmed.then(() => false), timedOut])) {
        this.logger.warn(
          `key revocation confirmed by ${pending.acks} of ${pending.expected} instances; the rest expire it within the cache TTL`,
        );
      }
    } finally {
      clearTimeout(timer);
      this.pendingEvictions.delete(evictionId);
    }
  }

  private async onRevoked(message: string): Promise<void> {
    const { keyHash, evictionId } = JSON.parse(message) as { keyHash: string; evictionId: string };
    this.cache.delete(keyHash);
    await this.redis.publish(EVICTED_CHANNEL, evictionId).catch(() => undefined);
  }

  private onEvicted(evictionId: string): void {
    const pending = this.pendingEvictions.get(evictionId);
    if (pending && ++pending.acks >= pending.expected) pending.done();
  }

  private cached(hash: string): CachedKey | undefined {
    const entry = this.cache.get(hash);
    if (!entry) return undefined;
    // The cache's age is a duration, measured on the real clock (as cachedAt below).
    if (!this.redis.listening || Date.now() - entry.cachedAt > this.config.auth.cacheTtlMs) {
      this.cache.delete(hash);
      return undefined;
    }
    return entry;
  }

  private async load(hash: string): Promise<CachedKey | undefined> {
    const found = await this.keys.findForAuthentication(hash);
    if (!found) return undefined;
    const { key, tenantName } = found;
    const entry: CachedKey = {
      revoked: key.revokedAt !== null,
      cachedAt: Date.now(),
      auth: {
        tenantId: key.tenantId,
        tenantName,
        mode: key.mode,
        apiKeyId: key.id,
        keyName: key.name,
        role: key.role,
        scopes: key.scopes,
        expiresAt: key.expiresAt,
      },
    };
    if (this.redis.listening && this.config.auth.cacheTtlMs > 0) {
      if (this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(hash, entry);
    }
    return entry;
  }

  private async flushLastUse(): Promise<void> {
    const batch = this.lastUse;
    this.lastUse = new Map();
    try {
      await this.keys.recordLastUse(new Map([...batch].map(([id, at]) => [id, new Date(at)])));
    } catch (err) {
      this.logger.warn(`could not record key last-use times: ${(err as Error).message}`);
      for (const [id, at] of batch) if (!this.lastUse.has(id)) this.lastUse.set(id, at);
    }
  }
}
