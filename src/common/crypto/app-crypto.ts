import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * What a derived key is for. Each purpose gets its own keys (HKDF), so a value encrypted or signed for
 * one purpose never opens or verifies as another's. Name a new one after the thing it protects
 * (`'unsubscribe-token'`, `'webhook-secret'`); never reuse one for a different kind of data.
 */
export type CryptoPurpose = string;

/** The format version; a later format gets a new one and this one stays readable. */
const VERSION = 'v1';
const VERSION_BYTE = 1;
const KID_BYTES = 4;
const IV_BYTES = 12; // AES-GCM's standard nonce length (random: safe far beyond our volumes per key)
const TAG_BYTES = 16;
const PURPOSE_FORMAT = /^[a-z0-9][a-z0-9.:-]{0,63}$/;

export class DecryptionError extends Error {}

interface MasterKey {
  /** 4 bytes that name the secret in every ciphertext and signature, so old values find their key after a rotation. */
  kid: Buffer;
  kidHex: string;
  secret: Buffer;
  derived: Map<string, Buffer>;
}

const b64url = (b: Buffer): string => b.toString('base64url');

function masterKey(secret: string): MasterKey {
  const bytes = Buffer.from(secret, 'utf8');
  const kid = Buffer.from(hkdfSync('sha256', bytes, 'practice-api', 'key-id', KID_BYTES));
  return { kid, kidHex: kid.toString('hex'), secret: bytes, derived: new Map() };
}

/**
 * Encryption and signatures under the application secret (APP_SECRET). Values carry the id of the
 * secret that made them: set a new APP_SECRET and move the old one to APP_SECRET_PREVIOUS, and new
 * values use the new secret while old ones still open and verify.
 *
 * - `encrypt`/`decrypt`: AES-256-GCM, a random IV per value, text form `v1.<kid>.<base64url(iv|tag|ct)>`
 *   (`encryptBytes`/`decryptBytes` for bytea columns: the same fields, binary). `context` is bound as
 *   additional authenticated data: pass the row's identity (tenant, id) so a value copied into another
 *   row does not open there.
 * - `sign`/`verify`: HMAC-SHA256, `<kid>.<base64url(mac)>`; `signToken`/`verifyToken` wrap a JSON payload.
 */
export class AppCrypto {
  private readonly current: MasterKey;
  private readonly byKid = new Map<string, MasterKey>();

  constructor(secret: string, previous: readonly string[] = []) {
    if (!secret) throw new Error('AppCrypto needs the application secret');
    this.current = masterKey(secret);
    for (const key of [this.current, ...previous.map(masterKey)]) {
      if (!this.byKid.has(key.kidHex)) this.byKid.set(key.kidHex, key);
    }
  }

  /** The id of the secret new values are made with. */
  get keyId(): string {
    return this.current.kidHex;
  }

  encrypt(purpose: CryptoPurpose, plaintext: string | Buffer, context = ''): string {
    const sealed = this.seal(this.current, purpose, plaintext, context);
    return `${VERSION}.${this.current.kidHex}.${b64url(sealed)}`;
  }

  decrypt(purpose: CryptoPurpose, value: string, context = ''): string {
    return this.decryptToBuffer(purpose, value, context).toString('utf8');
  }

  decryptToBuffer(purpose: CryptoPurpose, value: string, context = ''): Buffer {
    const parts = value.split('.');
    if (parts.length !== 3 || parts[0] !== VERSION) throw new DecryptionError('not a value encrypted by AppCrypto');
    return this.open(this.key(parts[1]), purpose, Buffer.from(parts[2], 'base64url'), context);
  }

  encryptBytes(purpose: CryptoPurpose, plaintext: Buffer, context = ''): Buffer {
    return Buffer.concat([Buffer.of(VERSION_BYTE), this.current.kid, this.seal(this.current, purpose, plaintext, context)]);
  }

  decryptBytes(purpose: CryptoPurpose, value: Buffer, context = ''): Buffer {
    if (value.length < 1 + KID_BYTES || value[0] !== VERSION_BYTE) throw new DecryptionError('not a value encrypted by AppCrypto');
    const kid = value.subarray(1, 1 + KID_BYTES).toString('hex');
    return this.open(this.key(kid), purpose, value.subarray(1 + KID_BYTES), context);
  }

  /** True for a value `encrypt` made (with any secret): tells legacy plaintext apart in migrations. */
  static isEncrypted(value: string): boolean {
    return /^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+$/.test(value);
  }

  /** True when the value was made with a previous secret, so it is worth re-encrypting. */
  isStale(value: string): boolean {
    return value.split('.')[1] !== this.current.kidHex;
  }

  sign(purpose: CryptoPurpose, message: string | Buffer): string {
    return `${this.current.kidHex}.${b64url(this.mac(this.current, purpose, message))}`;
  }

  verify(purpose: CryptoPurpose, message: string | Buffer, signature: string): boolean {
    const dot = signature.indexOf('.');
    const key = dot === 2 * KID_BYTES ? this.byKid.get(signature.slice(0, dot)) : undefined;
    if (!key) return false;
    // Compared as text: base64url decoding ignores the spare low bits of the last character, so a decoded
    // comparison would also accept signatures that differ from ours in that character.
    const given = Buffer.from(signature.slice(dot + 1));
    const expected = Buffer.from(b64url(this.mac(key, purpose, message)));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** `<base64url(JSON)>.<signature>`: a payload anyone can read and nobody can forge (e.g. an unsubscribe link). */
  signToken(purpose: CryptoPurpose, payload: unknown): string {
    const body = b64url(Buffer.from(JSON.stringify(payload), 'utf8'));
    return `${body}.${this.sign(purpose, body)}`;
  }

  /** The payload of a token `signToken` made for this purpose, or null (forged, altered, another purpose, malformed). */
  verifyToken<T = unknown>(purpose: CryptoPurpose, token: string): T | null {
    const dot = token.indexOf('.');
    if (dot <= 0) return null;
    const body = token.slice(0, dot);
    if (!this.verify(purpose, body, token.slice(dot + 1))) return null;
    try {
      return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T;
    } catch {
      return null;
    }
  }

  private key(kidHex: string): MasterKey {
    const key = this.byKid.get(kidHex);
    if (!key) throw new DecryptionError(`no secret with key id ${kidHex} (is APP_SECRET_PREVIOUS missing an old secret?)`);
    return key;
  }

  private derive(key: MasterKey, use: 'enc' | 'mac', purpose: CryptoPurpose): Buffer {
    if (!PURPOSE_FORMAT.test(purpose)) throw new Error(`invalid crypto purpose: ${purpose}`);
    const name = `${use}:${purpose}`;
    let derived = key.derived.get(name);
    if (!derived) {
      derived = Buffer.from(hkdfSync('sha256', key.secret, 'practice-api', name, 32));
      key.derived.set(name, derived);
    }
    return derived;
  }

  private seal(key: MasterKey, purpose: CryptoPurpose, plaintext: string | Buffer, context: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.derive(key, 'enc', purpose), iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const ct = Buffer.concat([cipher.update(typeof plaintext === 'string' ? Buffer.from(plaintext, 'utf8') : plaintext), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), ct]);
  }

  private open(key: MasterKey, purpose: CryptoPurpose, sealed: Buffer, context: string): Buffer {
    if (sealed.length < IV_BYTES + TAG_BYTES) throw new DecryptionError('encrypted value is truncated');
    const decipher = createDecipheriv('aes-256-gcm', this.derive(key, 'enc', purpose), sealed.subarray(0, IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new DecryptionError('encrypted value does not open (altered, another purpose or context, or another secret)');
    }
  }

  private mac(key: MasterKey, purpose: CryptoPurpose, message: string | Buffer): Buffer {
    return createHmac('sha256', this.derive(key, 'mac', purpose))
      .update(message)
      .digest();
  }
}
