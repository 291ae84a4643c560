import { decodeCursor, encodeCursor, pageRequest } from './pagination';

describe('cursors', () => {
  it('round-trip and stay opaque', () => {
    const cursor = { value: '2026-11-21T09:30:00.000Z', id: '0190c1c5-0000-7000-8000-000000000001' };
    const encoded = encodeCursor(cursor);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(encoded)).toEqual(cursor);
  });

  it('reject what the API did not issue', () => {
    for (const bad of ['garbage', Buffer.from('{"a":1}').toString('base64url'), Buffer.from('[1,2]').toString('base64url')]) {
      expect(() => decodeCursor(bad)).toThrow('1 field is invalid');
    }
  });

  it('default the page size to 50', () => {
    expect(pageRequest({})).toEqual({ limit: 50, after: undefined });
  });
});
