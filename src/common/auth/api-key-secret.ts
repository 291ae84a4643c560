import { createHash } from 'node:crypto';
import type { Mode } from '../../database/tenant-owned.entity';
import { randomBase62 } from '../ids';

/** 40 base62 characters: about 238 random bits. */
const SECRET_LENGTH = 40;

/** `sk_test_` or `sk_live_` followed by at least 32 base62 characters. */
export const API_KEY_FORMAT = /^sk_(test|live)_[0-9A-Za-z]{32,128}$/;

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
