import { plainToInstance } from 'class-transformer';
import { parseQuery, QueryInt, queryProblem } from './query';

describe('parseQuery', () => {
  it('parses as fast-querystring does: arrays for repeated keys, + as space, no prototype', () => {
    const query = parseQuery('a=1&b=x+y&a=2&c&d=%C3%A9');
    expect({ ...query }).toEqual({ a: ['1', '2'], b: 'x y', c: '', d: 'é' });
    expect(Object.getPrototypeOf(query)).toBeNull();
    expect(queryProblem(query)).toBeUndefined();
  });

  it('keeps prototype names as plain own keys', () => {
    const query = parseQuery('__proto__=1&constructor=2');
    expect(Object.keys(query)).toEqual(['__proto__', 'constructor']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('notes NUL, undecodable bytes and lone surrogates, naming the key', () => {
    expect(queryProblem(parseQuery('search=a%00b'))).toEqual({ field: 'search', message: 'must not contain NUL characters' });
    expect(queryProblem(parseQuery('search=%ED%A0%80'))).toEqual({ field: 'search', message: 'is not valid percent-encoded UTF-8' });
    expect(queryProblem(parseQuery('ok=1&search=%E0%A4%A'))).toEqual({ field: 'search', message: 'is not valid percent-encoded UTF-8' });
    expect(queryProblem(parseQuery('k%00=1'))).toEqual({ field: 'k\\u0000', message: 'must not contain NUL characters' });
  });

  it('answers undefined for what is not a parsed query', () => {
    expect(queryProblem(undefined)).toBeUndefined();
    expect(queryProblem({ a: '1' })).toBeUndefined();
  });
});

describe('QueryInt', () => {
  class Q {
    @QueryInt()
    n?: unknown;
  }
  const read = (n: string): unknown => plainToInstance(Q, { n }).n;

  it.each([
    ['10', 10],
    ['0', 0],
    ['-1', -1],
    ['100', 100],
  ])('converts the decimal %s', (raw, value) => expect(read(raw)).toBe(value));

  it.each(['0x10', '1e1', ' 10', '10 ', '+10', '010', '10.0', '0b1', '1_0', '', '١٠', '99999999999999999999'])(
    'leaves %j a string for @IsInt to refuse',
    (raw) => expect(read(raw)).toBe(raw),
  );
});
