import { generateApiKey } from '../../common/auth/api-key-secret';
import { loadConfig } from '../../config/app-config';
import { RedisService } from '../../common/redis/redis.service';
import { ApiKeyAuthenticator } from './api-key-authenticator.service';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeyEntity } from './entities/api-key.entity';

function setup(listening: boolean) {
  const secret = generateApiKey('test');
  const key = Object.assign(new ApiKeyEntity(), {
    id: 'k1',
    tenantId: 't1',
    mode: 'test',
    name: 'key',
    role: 'ADMIN',
    scopes: null,
    expiresAt: null,
    revokedAt: null,
    keyHash: secret.hash,
  });
  const keys = { findForAuthentication: jest.fn(async () => ({ key, tenantName: 'Acme' })) };
  const redis = { listening, publish: jest.fn(async () => 0) };
  const authenticator = new ApiKeyAuthenticator(
    keys as unknown as ApiKeysRepository,
    redis as unknown as RedisService,
    loadConfig({ AUTH_CACHE_TTL_SECONDS: '60' }),
  );
  return { authenticator, keys, redis, header: `Bearer ${secret.key}`, hash: secret.hash };
}

describe('ApiKeyAuthenticator', () => {
  it('serves a key seen recently from memory: one query for many requests', async () => {
    const { authenticator, keys, header } = setup(true);
    for (let i = 0; i < 5; i++) expect((await authenticator.authenticate(header)).tenantName).toBe('Acme');
    expect(keys.findForAuthentication).toHaveBeenCalledTimes(1);
  });

  it('does not trust its cache while the revocation subscription is down', async () => {
    const { authenticator, keys, header } = setup(false);
    for (let i = 0; i < 3; i++) await authenticator.authenticate(header);
    expect(keys.findForAuthentication).toHaveBeenCalledTimes(3);
  });

  it('forgets a key at once when revoking it, and does not wait when no other instance listens', async () => {
    const { authenticator, keys, redis, header, hash } = setup(true);
    await authenticator.authenticate(header);
    await authenticator.evict(hash);
    expect(redis.publish).toHaveBeenCalledWith('api-keys:revoked', expect.stringContaining(hash));
    await authenticator.authenticate(header);
    expect(keys.findForAuthentication).toHaveBeenCalledTimes(2);
  });

  it('answers 401 for malformed and missing keys without a query', async () => {
    const { authenticator, keys } = setup(true);
    await expect(authenticator.authenticate(undefined)).rejects.toMatchObject({ code: 'missing_api_key' });
    await expect(authenticator.authenticate('Bearer sk_test_short')).rejects.toMatchObject({ code: 'invalid_api_key' });
    expect(keys.findForAuthentication).not.toHaveBeenCalled();
  });
});
