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
