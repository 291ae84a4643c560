import { validate as isUuid, version } from 'uuid';
import { pooledRandomBytes, uuidv7 } from './ids';

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
