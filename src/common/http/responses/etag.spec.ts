import { entityTag, parseIfMatch } from './etag';

describe('entity tags', () => {
  const id = '0190a0a0-0000-7000-8000-000000000001';
  const other = '0190a0a0-0000-7000-8000-000000000002';

  it('differ by version and by resource', () => {
    expect(entityTag(id, 1)).not.toBe(entityTag(id, 2));
    expect(entityTag(id, 1)).not.toBe(entityTag(other, 1));
    expect(entityTag(id, 3)).toMatch(/^"[A-Za-z0-9_-]{8}\.3"$/);
  });

  it('parse back to the versions of this resource only', () => {
    expect(parseIfMatch(undefined, id)).toBeUndefined();
    expect(parseIfMatch('*', id)).toEqual({ any: true, versions: [] });
    expect(parseIfMatch(entityTag(id, 7), id)).toEqual({ any: false, versions: [7] });
    expect(parseIfMatch(`W/${entityTag(id, 7)}`, id)).toEqual({ any: false, versions: [7] });
    expect(parseIfMatch(`${entityTag(id, 1)}, ${entityTag(id, 2)}`, id)).toEqual({ any: false, versions: [1, 2] });
    expect(parseIfMatch(entityTag(other, 7), id)).toEqual({ any: false, versions: [] });
    expect(parseIfMatch('"garbage"', id)).toEqual({ any: false, versions: [] });
  });
});
