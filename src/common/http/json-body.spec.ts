import { findUnsafeJson, MAX_JSON_DEPTH } from './json-body';

describe('findUnsafeJson', () => {
  it('accepts ordinary bodies', () => {
    expect(findUnsafeJson({ a: [1, { b: 'c' }], constructor: 'plain string is fine' })).toBeUndefined();
    expect(findUnsafeJson([1, 2, 3])).toBeUndefined();
  });

  it('finds __proto__ and constructor.prototype with their paths', () => {
    expect(findUnsafeJson(JSON.parse('{"a":{"__proto__":{"x":1}}}'))).toEqual({ field: 'a.__proto__', message: 'is a forbidden key' });
    expect(findUnsafeJson({ list: [{ constructor: { prototype: {} } }] })).toEqual({
      field: 'list.0.constructor',
      message: 'is a forbidden key',
    });
  });

  it('bounds depth', () => {
    let ok: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) ok = [ok];
    expect(findUnsafeJson(ok)).toBeUndefined();
    expect(findUnsafeJson([ok])?.message).toMatch(/deeper than/);
  });
});
