import { createHash, randomBytes } from 'node:crypto';
import type { Mode } from '../../database/tenant-owned.entity';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;

/** `sk_test_` or `sk_live_` followed by at least 32 base62 characters. */
export const API_KEY_FORMAT = /^sk_(test|live)_[0-9A-Za-z]{32,128}$/;

/** Base62 from a CSPRNG, by rejection sampling so that every character is equally likely. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export interface NewApiKey {
  key: string;
  hash: string;
  prefix: string;
  last4: string;
}

export function generateApiKey(mode: Mode): NewApiKey {
  const key = `sk_${mode}_${randomBase62(SECRET_LENGTH)}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 12), last4: key.slice(-4) };
}
