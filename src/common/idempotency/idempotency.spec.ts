import { ValidationFailedException } from '../http/errors/problem';
import { canonicalJson, idempotencyKeyHash, parseIdempotencyKey, requestFingerprint } from './idempotency';

describe('Idempotency-Key helpers', () => {
  describe('parseIdempotencyKey', () => {
    it('answers undefined without the header', () => {
      expect(parseIdempotencyKey(undefined)).toBeUndefined();
    });

    it('accepts 1 to 255 characters', () => {
      expect(parseIdempotencyKey('a')).toBe('a');
      expect(parseIdempotencyKey('x'.repeat(255))).toHaveLength(255);
    });

    it.each([[''], ['x'.repeat(256)], [['a', 'b']]])('refuses %j with 400 naming the header', (value) => {
      expect(() => parseIdempotencyKey(value)).toThrow(ValidationFailedException);
      try {
        parseIdempotencyKey(value);
      } catch (err) {
        expect((err as ValidationFailedException).extensions.errors?.[0].field).toBe('Idempotency-Key');
      }
    });
  });

  describe('canonicalJson', () => {
    it('sorts keys at every level and keeps array order', () => {
      expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    });

    it('drops undefined members as JSON does', () => {
      expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
      expect(canonicalJson([undefined])).toBe('[null]');
      expect(canonicalJson(undefined)).toBe('');
    });
  });

  describe('requestFingerprint', () => {
    const base = requestFingerprint('POST', '/api/v1/patients', { firstName: 'Ada', lastName: 'Lovelace' });

    it('is a SHA-256 hex digest, stable under key order', () => {
      expect(base).toMatch(/^[0-9a-f]{64}$/);
      expect(requestFingerprint('post', '/api/v1/patients', { lastName: 'Lovelace', firstName: 'Ada' })).toBe(base);
    });

    it('differs with the method, the path, the query or the body', () => {
      const variants = [
        requestFingerprint('PUT', '/api/v1/patients', { firstName: 'Ada', lastName: 'Lovelace' }),
        requestFingerprint('POST', '/api/v1/forms', { firstName: 'Ada', lastName: 'Lovelace' }),
        requestFingerprint('POST', '/api/v1/patients?dryRun=true', { firstName: 'Ada', lastName: 'Lovelace' }),
        requestFingerprint('POST', '/api/v1/patients', { firstName: 'Ada', lastName: 'Byron' }),
        requestFingerprint('POST', '/api/v1/patients', undefined),
      ];
      expect(new Set([base, ...variants]).size).toBe(variants.length + 1);
    });

    it('does not confuse a path boundary with the body', () => {
      expect(requestFingerprint('POST', '/a', '\n/b')).not.toBe(requestFingerprint('POST', '/a\n', '/b'));
    });
  });

  it('stores the caller-chosen value as a fixed-length hash', () => {
    expect(idempotencyKeyHash('my key: with spaces')).toMatch(/^[0-9a-f]{64}$/);
    expect(idempotencyKeyHash('x'.repeat(255))).toHaveLength(64);
    expect(idempotencyKeyHash('a')).not.toBe(idempotencyKeyHash('b'));
  });
});
