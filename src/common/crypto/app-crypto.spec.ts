import { AppCrypto, DecryptionError } from './app-crypto';

const SECRET = 'a'.repeat(16) + 'first-secret-0123456789';
const NEXT = 'b'.repeat(16) + 'second-secret-0123456789';

describe('AppCrypto', () => {
  const crypto = new AppCrypto(SECRET);

  it('encrypts to a versioned value with the key id, never containing the plaintext, and decrypts it', () => {
    const value = crypto.encrypt('webhook-secret', 'whsec_topsecret');
    expect(value).toMatch(new RegExp(`^v1\\.${crypto.keyId}\\.[A-Za-z0-9_-]+$`));
    expect(value).not.toContain('topsecret');
    expect(AppCrypto.isEncrypted(value)).toBe(true);
    expect(AppCrypto.isEncrypted('whsec_topsecret')).toBe(false);
    expect(crypto.decrypt('webhook-secret', value)).toBe('whsec_topsecret');
  });

  it('uses a fresh IV every time', () => {
    expect(crypto.encrypt('p', 'same')).not.toBe(crypto.encrypt('p', 'same'));
  });

  it('refuses another purpose, another context, another secret and any altered byte', () => {
    const value = crypto.encrypt('webhook-secret', 'hello', 'tenant-1:row-1');
    expect(() => crypto.decrypt('idempotency', value, 'tenant-1:row-1')).toThrow(DecryptionError);
    expect(() => crypto.decrypt('webhook-secret', value, 'tenant-2:row-1')).toThrow(DecryptionError);
    expect(() => new AppCrypto(NEXT).decrypt('webhook-secret', value, 'tenant-1:row-1')).toThrow(/no secret with key id/);
    const body = value.split('.')[2];
    const flipped = Buffer.from(body, 'base64url');
    flipped[flipped.length - 1] ^= 1;
    expect(() => crypto.decrypt('webhook-secret', `v1.${crypto.keyId}.${flipped.toString('base64url')}`, 'tenant-1:row-1')).toThrow(
      DecryptionError,
    );
    expect(() => crypto.decrypt('webhook-secret', 'v1.abc', '')).toThrow(DecryptionError);
    expect(() => crypto.decrypt('webhook-secret', `v1.${crypto.keyId}.AAAA`, '')).toThrow(/truncated/);
  });

  it('encrypts bytes for bytea columns the same way', () => {
    const plain = Buffer.from([0, 1, 2, 250, 255]);
    const sealed = crypto.encryptBytes('recovery-point', plain, 'ctx');
    expect(sealed[0]).toBe(1);
    expect(sealed.subarray(1, 5).toString('hex')).toBe(crypto.keyId);
    expect(crypto.decryptBytes('recovery-point', sealed, 'ctx')).toEqual(plain);
    expect(() => crypto.decryptBytes('recovery-point', sealed, 'other')).toThrow(DecryptionError);
    expect(() => crypto.decryptBytes('recovery-point', Buffer.from('{"json":1}'), 'ctx')).toThrow(DecryptionError);
  });

  it('rotates: values of the previous secret still open and verify; new ones use the new secret', () => {
    const oldValue = crypto.encrypt('p', 'kept', 'c');
    const oldSignature = crypto.sign('p', 'message');
    const rotated = new AppCrypto(NEXT, [SECRET]);
    expect(rotated.keyId).not.toBe(crypto.keyId);
    expect(rotated.decrypt('p', oldValue, 'c')).toBe('kept');
    expect(rotated.isStale(oldValue)).toBe(true);
    expect(rotated.verify('p', 'message', oldSignature)).toBe(true);
    const newValue = rotated.encrypt('p', 'new', 'c');
    expect(rotated.isStale(newValue)).toBe(false);
    expect(() => crypto.decrypt('p', newValue, 'c')).toThrow(DecryptionError);
  });

  it('derives the same keys from the same secret (a restart opens what the last run encrypted)', () => {
    const again = new AppCrypto(SECRET);
    expect(again.keyId).toBe(crypto.keyId);
    expect(again.decrypt('p', crypto.encrypt('p', 'x'))).toBe('x');
    expect(again.sign('p', 'm')).toBe(crypto.sign('p', 'm'));
  });

  it('signs and verifies per purpose, refusing altered messages and signatures', () => {
    const signature = crypto.sign('unsubscribe-token', 'patient-1');
    expect(signature).toMatch(new RegExp(`^${crypto.keyId}\\.[A-Za-z0-9_-]{43}$`));
    expect(crypto.verify('unsubscribe-token', 'patient-1', signature)).toBe(true);
    expect(crypto.verify('unsubscribe-token', 'patient-2', signature)).toBe(false);
    expect(crypto.verify('other-purpose', 'patient-1', signature)).toBe(false);
    expect(crypto.verify('unsubscribe-token', 'patient-1', `${signature.slice(0, -2)}AA`)).toBe(false);
    expect(crypto.verify('unsubscribe-token', 'patient-1', 'garbage')).toBe(false);
    expect(crypto.verify('unsubscribe-token', 'patient-1', '')).toBe(false);
    expect(new AppCrypto(NEXT).verify('unsubscribe-token', 'patient-1', signature)).toBe(false);
  });

  it('refuses every other spelling of a signature, even one that decodes to the same bytes', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const message of ['patient-1', 'patient-2', 'patient-3', 'patient-4']) {
      const signature = crypto.sign('unsubscribe-token', message);
      // A 32-byte MAC's 43rd character carries 4 bits and 2 spare ones: 3 other characters decode alike.
      for (const last of alphabet) {
        const variant = signature.slice(0, -1) + last;
        expect(crypto.verify('unsubscribe-token', message, variant)).toBe(variant === signature);
      }
    }
  });

  it('signs tokens carrying a JSON payload and returns null for anything forged', () => {
    const token = crypto.signToken('unsubscribe-token', { p: 'patient-1', t: 'tenant-1' });
    expect(crypto.verifyToken('unsubscribe-token', token)).toEqual({ p: 'patient-1', t: 'tenant-1' });
    const [body, signature] = [token.slice(0, token.indexOf('.')), token.slice(token.indexOf('.') + 1)];
    const forged = Buffer.from(JSON.stringify({ p: 'patient-2', t: 'tenant-1' })).toString('base64url');
    expect(crypto.verifyToken('unsubscribe-token', `${forged}.${signature}`)).toBeNull();
    expect(crypto.verifyToken('email-link', token)).toBeNull();
    expect(crypto.verifyToken('unsubscribe-token', body)).toBeNull();
    expect(crypto.verifyToken('unsubscribe-token', '')).toBeNull();
  });

  it('refuses purposes that are not plain names', () => {
    expect(() => crypto.encrypt('', 'x')).toThrow(/purpose/);
    expect(() => crypto.sign('Has Spaces', 'x')).toThrow(/purpose/);
  });
});
