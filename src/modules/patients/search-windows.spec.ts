import { SEARCH_INDEX_TEXT, SEARCH_JOINERS, searchWindows, walksJoinKey } from './search-windows';

const withoutJoiners = (text: string): string => [...text].filter((c) => !SEARCH_JOINERS.includes(c)).join('');

describe('searchWindows', () => {
  it.each([
    ['gus white', ['guswhi']],
    ['jo smith', ['josmi']],
    ['mary ann smith', ['aryann', 'annsmi']],
    ['gus  white', ['guswhi']],
    ['amir.larsen636847', ['mirlar', '6847']],
    ['noor.nagy71108@', ['oornag', '1108']],
    ['o.kim2024', ['okim', '2024']],
    ['5551234', ['5551234']],
    ['garcia', ['garcia']],
    [' gus.', ['gus']],
    ['a b', ['ab']],
    ['100%_x', ['00%x']],
  ])('%j is asked for as %j', (term, windows) => {
    expect(searchWindows(term)).toEqual(windows);
  });

  it('asks only for parts of the indexed text of every text that contains the term (nothing is missed)', () => {
    // A fixed-seed generator: texts over a few letters, digits and every joiner, and terms cut from them.
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = `ab01${SEARCH_JOINERS}`;
    let checked = 0;
    for (let k = 0; k < 5000; k++) {
      const text = Array.from({ length: 1 + next(24) }, () => alphabet[next(alphabet.length)]).join('');
      const from = next(text.length);
      const term = text.slice(from, from + 1 + next(text.length - from));
      const indexed = withoutJoiners(text);
      for (const window of searchWindows(term)) {
        expect(indexed).toContain(window);
        expect([...window].some((c) => SEARCH_JOINERS.includes(c))).toBe(false);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5000);
  });

  it('spells the index expression with every joiner, the quote doubled', () => {
    expect(SEARCH_INDEX_TEXT).toBe(`translate(search_text, ' .@+-_''', '')`);
  });
});

describe('walksJoinKey', () => {
  it.each([
    ['gus white', true],
    ['mary ann smith', true],
    ['gus  white', true],
    ['gus. white', true],
    [' gus white ', true],
    ['angus whi', true],
    ['jo ann smith', false],
    ['kira li', false],
    ['mateo haddad-lee', false],
    ['gus.white1987', false],
    ['gus white 1987', false],
    ['ab1 cde', false],
    ['garcia', false],
    ['', false],
  ])('%j: %s', (term, walks) => {
    expect(walksJoinKey(term)).toBe(walks);
  });
});
