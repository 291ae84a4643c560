import {
  birthDateProblem,
  birthDateRangeForAges,
  customFieldsProblems,
  customFieldValueProblem,
  generateJoiningCode,
  isCalendarDate,
  JOINING_CODE_ALPHABET,
  mergeCustomFields,
  normalizeTags,
  tagListProblem,
  toE164,
} from './patient-rules';

describe('joining codes', () => {
  it('uses 32 unambiguous symbols: no 0, O, 1 or I', () => {
    expect(JOINING_CODE_ALPHABET).toHaveLength(32);
    expect(new Set(JOINING_CODE_ALPHABET).size).toBe(32);
    for (const c of '01OI') expect(JOINING_CODE_ALPHABET).not.toContain(c);
  });

  it('generates 8 characters of the alphabet, all symbols reachable, rarely repeating', () => {
    const codes = Array.from({ length: 2000 }, generateJoiningCode);
    for (const code of codes) expect(code).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{8}$/);
    expect(new Set(codes).size).toBe(codes.length);
    expect(new Set(codes.join('')).size).toBe(32);
  });
});

describe('tags', () => {
  it('trims, drops empties and de-duplicates keeping the first order', () => {
    expect(normalizeTags([' vip', 'b', 'vip ', 'a', 'b'])).toEqual(['vip', 'b', 'a']);
  });

  it.each([
    [['ok'], null],
    ['vip', 'must be an array of strings'],
    [[1], 'must be an array of strings'],
    [['ok', ' '], 'must not contain empty tags'],
    [['x'.repeat(64)], null],
    [['x'.repeat(65)], 'must contain tags of at most 64 characters'],
    [[' ' + 'x'.repeat(64) + ' '], null],
    [Array.from({ length: 50 }, (_, i) => `t${i}`), null],
    [[...Array.from({ length: 50 }, (_, i) => `t${i}`), 't1'], null],
    [Array.from({ length: 51 }, (_, i) => `t${i}`), 'must contain at most 50 distinct tags'],
  ])('judges %j: %s', (value, problem) => {
    expect(tagListProblem(value)).toBe(problem);
  });
});

describe('phone numbers', () => {
  it('normalises valid international numbers to E.164', () => {
    expect(toE164('+44 20 7946 0000')).toBe('+442079460000');
    expect(toE164('+1 (415) 555-2671')).toBe('+14155552671');
  });

  it('rejects invalid or national numbers', () => {
    expect(toE164('12345')).toBeNull();
    expect(toE164('020 7946 0000')).toBeNull();
    expect(toE164('+44 12')).toBeNull();
    expect(toE164('call me')).toBeNull();
  });
});

describe('dates', () => {
  const now = new Date('2026-03-15T12:00:00Z');

  it('knows real calendar days', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2023-02-29')).toBe(false);
    expect(isCalendarDate('2023-13-01')).toBe(false);
    expect(isCalendarDate('2023-1-01')).toBe(false);
    expect(isCalendarDate(20230101)).toBe(false);
  });

  it('accepts past birth dates from 1900 and refuses today, the future and invented days', () => {
    expect(birthDateProblem('1990-06-01', now)).toBeNull();
    expect(birthDateProblem('1900-01-01', now)).toBeNull();
    expect(birthDateProblem('2026-03-14', now)).toBeNull();
    expect(birthDateProblem('2026-03-15', now)).toBe('must be in the past');
    expect(birthDateProblem('2030-01-01', now)).toBe('must be in the past');
    expect(birthDateProblem('1899-12-31', now)).toBe('must not be before 1900-01-01');
    expect(birthDateProblem('1990-02-30', now)).toMatch(/real date/);
  });

  it('turns an age range into birth-date bounds', () => {
    // At least 18 on 2026-03-15: born on or before 2008-03-15. At most 30: born after 1995-03-15.
    expect(birthDateRangeForAges('2026-03-15', 18, 30)).toEqual({ bornOnOrBefore: '2008-03-15', bornAfter: '1995-03-15' });
    expect(birthDateRangeForAges('2024-02-29', 1)).toEqual({ bornOnOrBefore: '2023-02-28', bornAfter: undefined });
  });
});

describe('custom field values', () => {
  const defs = new Map([
    ['insurer', { key: 'insurer', type: 'text' as const, options: null }],
    ['visits', { key: 'visits', type: 'number' as const, options: null }],
    ['smoker', { key: 'smoker', type: 'boolean' as const, options: null }],
    ['review', { key: 'review', type: 'date' as const, options: null }],
    ['plan', { key: 'plan', type: 'select' as const, options: ['basic', 'plus'] }],
  ]);

  it.each([
    ['insurer', 'Bupa', null],
    ['insurer', 3, 'must be a string'],
    ['insurer', 'x'.repeat(2001), 'must be at most 2000 characters'],
    ['visits', 2.5, null],
    ['visits', '2', 'must be a number'],
    ['visits', Number.NaN, 'must be a number'],
    ['smoker', false, null],
    ['smoker', 'false', 'must be a boolean'],
    ['review', '2025-01-31', null],
    ['review', '2025-02-31', 'must be a real date in the format YYYY-MM-DD'],
    ['plan', 'plus', null],
    ['plan', 'gold', 'must be one of: basic, plus'],
  ])('%s = %j: %s', (key, value, problem) => {
    expect(customFieldValueProblem(defs.get(key)!, value)).toBe(problem);
  });

  it('names unknown keys (null values too) and accepts null ("no value") for defined ones', () => {
    expect(customFieldsProblems({ nope: 1, gone: null, visits: null }, defs)).toEqual([
      { field: 'customFields.nope', message: 'is not a defined custom field' },
      { field: 'customFields.gone', message: 'is not a defined custom field' },
    ]);
    expect(customFieldsProblems({ visits: null }, defs)).toEqual([]);
  });

  it('merges per key, null removing', () => {
    expect(mergeCustomFields({ a: 1, b: 2 }, { b: null, c: 3 })).toEqual({ a: 1, c: 3 });
  });
});
