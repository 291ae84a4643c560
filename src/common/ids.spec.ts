import { parse, validate as isUuid, stringify, version } from 'uuid';
import { isUuid as isUuidText, pooledRandomBytes, randomBase62, uuidv7, writeUuid, writeUuidv7 } from './ids';

describe('uuidv7', () => {
  it('makes valid, distinct version-7 UUIDs across several refills of the random pool', () => {
    const ids = Array.from({ length: 2000 }, () => uuidv7());
    expect(ids.every((id) => isUuid(id) && version(id) === 7)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sorts in creation order, within one millisecond as across them', () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7());
    expect([...ids].sort()).toEqual(ids);
  });

  it('carries the creation time in its first 48 bits', () => {
    const before = Date.now();
    const id = uuidv7();
    const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });
});

describe('writeUuidv7', () => {
  it('writes the 16 bytes of a UUIDv7 in place, in one order with the string ids', () => {
    const target = Buffer.alloc(40, 0xee);
    const before = uuidv7();
    writeUuidv7(target, 12);
    const written = stringify(target.subarray(12, 28));
    expect(version(written)).toBe(7);
    const after = uuidv7();
    expect([before, written, after]).toEqual([before, written, after].sort());
    expect(target.subarray(0, 12).every((b) => b === 0xee) && target.subarray(28).every((b) => b === 0xee)).toBe(true);
  });
});

describe('pooledRandomBytes', () => {
  it('never hands out the same bytes twice, across refills of the pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i++) seen.add(Buffer.from(pooledRandomBytes(8)).toString('hex'));
    expect(seen.size).toBe(3000);
  });

  it('refuses requests larger than it serves', () => {
    expect(() => pooledRandomBytes(65)).toThrow(RangeError);
  });
});

describe('isUuid and writeUuid', () => {
  it('accept exactly what PostgreSQL reads as a uuid, and write its 16 bytes', () => {
    for (const id of [
      '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b',
      '0193A5B2-7C1D-7E4F-8A9B-0C1D2E3F4A5B',
      '00000000-0000-0000-0000-000000000000',
    ]) {
      expect(isUuidText(id)).toBe(true);
      const bytes = new Uint8Array(20);
      writeUuid(bytes, id, 2);
      expect(Buffer.from(bytes.subarray(2, 18))).toEqual(Buffer.from(parse(id.toLowerCase())));
    }
    for (const bad of [
      '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5',
      '0193a5b2x7c1d-7e4f-8a9b-0c1d2e3f4a5b',
      '0193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5g',
      'é193a5b2-7c1d-7e4f-8a9b-0c1d2e3f4a5b',
      42,
      null,
    ]) {
      expect(isUuidText(bad)).toBe(false);
    }
  });
});

describe('randomBase62', () => {
  it('makes ids of the length asked, of base62 characters only, never twice', () => {
    const ids = Array.from({ length: 5000 }, () => randomBase62(16));
    expect(ids.every((id) => /^[0-9A-Za-z]{16}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(randomBase62(1)).toMatch(/^[0-9A-Za-z]$/);
    expect(randomBase62(100)).toMatch(/^[0-9A-Za-z]{100}$/);
  });

  it('draws every character about as often as the others (no modulo bias)', () => {
    const counts = new Map<string, number>();
    for (const c of randomBase62(62 * 2000)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 2,000 expected each, standard deviation about 44: a bias towards the first eight would show as ~2,500.
    for (const n of counts.values()) expect(Math.abs(n - 2000)).toBeLessThan(250);
  });
});
