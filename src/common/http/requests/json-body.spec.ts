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

describe('findUnsafeJson: values PostgreSQL cannot store', () => {
  it('names a string or key with NUL, with an escaped path', () => {
    expect(findUnsafeJson({ a: ['ok', 'b\u0000'] })).toEqual({ field: 'a.1', message: 'must not contain NUL characters' });
    expect(findUnsafeJson({ 'k\u0000': 1 })).toEqual({ field: 'k\\u0000', message: 'is a key that must not contain NUL characters' });
  });

  it('names unpaired surrogates but accepts paired ones (emoji)', () => {
    expect(findUnsafeJson({ name: 'x\ud800' })?.message).toMatch(/unpaired surrogate/);
    expect(findUnsafeJson({ name: '\udc00x' })?.message).toMatch(/unpaired surrogate/);
    expect(findUnsafeJson({ name: 'smile \ud83d\ude00' })).toBeUndefined();
  });

  it('skips the text check when the body had no \\u escape', () => {
    expect(findUnsafeJson({ a: 'b\u0000' }, false)).toBeUndefined();
  });

  it('names numbers that are not finite', () => {
    expect(findUnsafeJson(JSON.parse('{"a":{"b":1e400}}'))).toEqual({ field: 'a.b', message: 'must be a finite number' });
    expect(findUnsafeJson(JSON.parse('[-1e400]'))).toEqual({ field: '0', message: 'must be a finite number' });
    expect(findUnsafeJson(JSON.parse('{"a":1e308,"b":-0,"c":5e-400}'))).toBeUndefined();
  });
});
