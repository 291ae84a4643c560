import { randomFillSync } from 'node:crypto';
import { v7 } from 'uuid';

/** Random bytes drawn from the kernel at a time: one getrandom call per 4 KiB instead of one per id. */
const pool = new Uint8Array(4096);
let nextInPool = pool.length;

/**
 * `size` (at most 64) cryptographically random bytes out of a pooled buffer, as Node's
 * `crypto.randomUUID()` pools its own: `randomBytes` per id or code is a kernel call each, which profiled
 * as the largest cost of writing an audit entry (bench/README.md, Patients). The answer is a view of the
 * pool: use it before the next call.
 */
export function pooledRandomBytes(size: number): Uint8Array {
  if (size > 64) throw new RangeError('pooledRandomBytes serves at most 64 bytes');
  if (nextInPool + size > pool.length) {
    randomFillSync(pool);
    nextInPool = 0;
  }
  return pool.subarray(nextInPool, (nextInPool += size));
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** The bytes below this (4 × 62) map evenly onto BASE62; larger ones are drawn again. */
const BASE62_BYTE_LIMIT = 248;

/** A link token's length: 16 base62 characters are about 95 random bits. */
const LINK_TOKEN_LENGTH = 16;
const LINK_TOKEN = new RegExp(`^[0-9A-Za-z]{${LINK_TOKEN_LENGTH}}$`);

/** The random token of a link a patient is sent (a manage link, a waitlist offer): stored with what it opens. */
export function newLinkToken(): string {
  return randomBase62(LINK_TOKEN_LENGTH);
}

/** Whether `value` has a link token's shape: anything else names nothing, without a lookup. */
export function isLinkToken(value: string): boolean {
  return LINK_TOKEN.test(value);
}

/**
 * `length` random base62 characters (0-9, A-Z, a-z), each uniform: log2(62) ≈ 5.95 bits a character, so 16
 * make an id nobody can guess. Base62 keeps it whole where a URL is cut at punctuation (SMS apps linkify).
 */
export function randomBase62(length: number): string {
  let id = '';
  while (id.length < length) {
    for (const byte of pooledRandomBytes(Math.min(64, length - id.length + 4))) {
      if (byte < BASE62_BYTE_LIMIT && id.length < length) id += BASE62[byte % 62];
    }
  }
  return id;
}

/** The millisecond and 31-bit counter of the last id, as `uuid` keeps them: ids sort in creation order. */
let lastMs = -Infinity;
let sequence = 0;

/**
 * A new UUIDv7: sortable by creation time, and monotonic within this process (a counter orders the ids
 * of one millisecond, from a random start, as `uuid`'s own v7 does), with its random bits from the pool.
 */
export function uuidv7(): string {
  return v7(nextV7());
}

/** A new UUIDv7 (as uuidv7()) written as its 16 bytes into `target` at `offset`, with no string made. */
export function writeUuidv7(target: Uint8Array, offset: number): void {
  v7(nextV7(), target, offset);
}

function nextV7(): { random: Uint8Array; msecs: number; seq: number } {
  const random = pooledRandomBytes(16);
  const now = Date.now(); // the real clock: an id's time orders ids, it is not a business time
  if (now > lastMs) {
    lastMs = now;
    sequence = ((random[6] & 0x7f) << 24) | (random[7] << 16) | (random[8] << 8) | random[9];
  } else {
    sequence = (sequence + 1) | 0;
    if (sequence === 0) lastMs++; // the counter wrapped within one millisecond: borrow the next one
  }
  return { random, msecs: lastMs, seq: sequence };
}

/** Hex digit values by character code (-1: not a hex digit). */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
/** Where a UUID's text has its hyphens; every segment between them has an even length. */
const isHyphenAt = (i: number): boolean => i === 8 || i === 13 || i === 18 || i === 23;

/**
 * Whether `value` is a UUID as PostgreSQL's uuid type reads it (any version, either case): checked
 * character by character, as the audit hook runs it on every patient of every page it sends.
 */
export function isUuid(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = value.charCodeAt(i);
    if (isHyphenAt(i) ? c !== 45 : c > 127 || HEX[c] < 0) return false;
  }
  return true;
}

/** Writes the 16 bytes of a UUID string (checked with isUuid) at `offset`. */
export function writeUuid(target: Uint8Array, id: string, offset: number): void {
  let out = offset;
  for (let i = 0; i < 36; i += 2) {
    if (isHyphenAt(i)) i++;
    target[out++] = (HEX[id.charCodeAt(i)] << 4) | HEX[id.charCodeAt(i + 1)];
  }
}
