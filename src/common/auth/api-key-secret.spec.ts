import { createHash } from 'node:crypto';
import { API_KEY_FORMAT, generateApiKey, hashApiKey } from './api-key-secret';

describe('API key secrets', () => {
  it('generates sk_<mode>_ keys with 40 base62 characters', () => {
    for (const mode of ['test', 'live'] as const) {
      const { key, prefix, last4 } = generateApiKey(mode);
      expect(key).toMatch(new RegExp(`^sk_${mode}_[0-9A-Za-z]{40}$`));
      expect(API_KEY_FORMAT.test(key)).toBe(true);
      expect(prefix).toBe(key.slice(0, 12));
      expect(last4).toBe(key.slice(-4));
    }
  });

  it('stores only the SHA-256 of the whole key', () => {
    const { key, hash } = generateApiKey('test');
    expect(hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toBe(hash);
    expect(hash).not.toContain(key.slice(8));
  });

  it('never repeats and uses the whole alphabet', () => {
    const keys = Array.from({ length: 2000 }, () => generateApiKey('live').key.slice(8));
    expect(new Set(keys).size).toBe(keys.length);
    const alphabet = new Set(keys.join(''));
    expect(alphabet.size).toBe(62);
  });
});
