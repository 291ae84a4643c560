import { parseSettingsPatch } from './settings-payload';

describe('parseSettingsPatch', () => {
  it('splits sets from deletions (null)', () => {
    expect(parseSettingsPatch({ a: 1, b: null, c: { d: null } })).toEqual({ set: { a: 1, c: { d: null } }, deleted: ['b'] });
  });

  it('rejects non-objects', () => {
    for (const body of [null, [], 'x', 3, undefined]) expect(() => parseSettingsPatch(body)).toThrow('1 field is invalid');
  });

  it('rejects forbidden keys anywhere, naming each path', () => {
    try {
      parseSettingsPatch({ constructor: 1, a: { b: { prototype: 2 } } });
      throw new Error('expected a throw');
    } catch (e) {
      expect((e as { extensions: { errors: unknown } }).extensions.errors).toEqual([
        { field: 'constructor', message: 'is a forbidden key' },
        { field: 'a.b.prototype', message: 'is a forbidden key' },
      ]);
    }
  });

  it('bounds size at 64 KiB', () => {
    expect(() => parseSettingsPatch({ a: 'x'.repeat(64 * 1024) })).toThrow(/limited to 65536 bytes/);
    expect(() => parseSettingsPatch({ a: 'x'.repeat(60 * 1024) })).not.toThrow();
  });
});
