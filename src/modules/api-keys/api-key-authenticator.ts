import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InvalidApiKeyException, MissingApiKeyException } from '../../common/auth/auth.exceptions';
import { API_KEY_FORMAT, hashApiKey } from '../../common/auth/api-key-secret';
import { AuthContext, Authenticator } from '../../common/auth/auth.types';
import { RedisService } from '../../common/redis/redis.service';
import { AppConfig } from '../../config/app-config';
import { ApiKeysRepository } from './api-keys.repository';

const LAST_USE_FLUSH_MS = 15_000;
const MAX_CACHED_KEYS = 10_000;

interface CachedKey {
  auth: AuthContext;
  revoked: boolean;
  cachedAt: number;
}

/**
 * Turns an Authorization header into an AuthContext. A key seen recently costs no PostgreSQL query, only
 * a Redis EXISTS on its revocation marker; otherwise one indexed query. Revoking writes that marker (kept
 * longer than any cache entry lives), so every instance refuses the key on its very next request; a
 * pub/sub message could still be in flight then. Last-use times are buffered and written in batches.
 */
@Injectable()
export class ApiKeyAuthenticator extends Authenticator implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ApiKeyAuthenticator.name);
  private readonly cache = new Map<string, CachedKey>();
  private lastUse = new Map<string, Date>();
  private flushTimer?: NodeJS.Timeout;

  constructor(
    private readonly keys: ApiKeysRepository,
    private readonly redis: RedisService,
    private readonly config: AppConfig,
  ) {
    super();
  }

  onModuleInit(): void {
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

    const entry = (await this.cached(hash)) ?? (await this.load(hash));
    if (!entry || entry.revoked) throw new InvalidApiKeyException();
    if (entry.auth.expiresAt && entry.auth.expiresAt.getTime() <= Date.now()) {
      throw new InvalidApiKeyException('The API key has expired');
    }
    this.lastUse.set(entry.auth.apiKeyId, new Date());
    return entry.auth;
  }

  /** Marks a key revoked for every instance (this one included); called after the database says so. */
  async evict(keyHash: string, keyId: string): Promise<void> {
    this.cache.delete(keyHash);
    const markerTtlMs = 2 * this.config.auth.cacheTtlMs + 1000;
    await this.redis.client.set(this.revokedMarker(keyId), '1', 'PX', markerTtlMs);
  }

  private revokedMarker(keyId: string): string {
    return this.redis.key('api-keys', 'revoked', keyId);
  }

  private async cached(hash: string): Promise<CachedKey | undefined> {
    const entry = this.cache.get(hash);
    if (!entry) return undefined;
    if (Date.now() - entry.cachedAt > this.config.auth.cacheTtlMs) {
      this.cache.delete(hash);
      return undefined;
    }
    if ((await this.redis.client.exists(this.revokedMarker(entry.auth.apiKeyId))) === 1) {
      this.cache.delete(hash);
      return { ...entry, revoked: true };
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
    if (this.config.auth.cacheTtlMs > 0) {
      if (this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(hash, entry);
    }
    return entry;
  }

  private async flushLastUse(): Promise<void> {
    const batch = this.lastUse;
    this.lastUse = new Map();
    try {
      await this.keys.recordLastUse(batch);
    } catch (err) {
      this.logger.warn(`could not record key last-use times: ${(err as Error).message}`);
      for (const [id, at] of batch) if (!this.lastUse.has(id)) this.lastUse.set(id, at);
    }
  }
}
