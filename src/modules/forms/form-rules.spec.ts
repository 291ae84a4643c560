import { answer, checkSubmission, FieldDefinition, fieldDefinitionProblems, normalizeField, sameFields } from './form-rules';

const field = (type: FieldDefinition['type'], extra: Partial<FieldDefinition> = {}): FieldDefinition => ({
  id: 'f',
  label: 'F',
  type,
  required: false,
  ...extra,
});

describe('field definitions', () => {
  it('accepts a valid list', () => {
    expect(
      fieldDefinitionProblems([
        field('select', { id: 'a', options: ['x'] }),
        field('number', { id: 'b', min: 0, max: 0 }),
        field('textarea', { id: 'c', maxLength: 20000 }),
      ]),
    ).toEqual([]);
  });

  it('names each cross-member problem by index', () => {
    expect(
      fieldDefinitionProblems([
        field('text', { id: 'a', options: ['x'], min: 1 }),
        field('multiselect', { id: 'a' }),
        field('number', { id: 'n', min: 5, max: 1, maxLength: 3 }),
        field('text', { id: 't', maxLength: 2001 }),
      ]),
    ).toEqual([
      { field: 'fields.0.options', message: 'is only allowed for select and multiselect fields' },
      { field: 'fields.0.min', message: 'is only allowed for number fields' },
      { field: 'fields.1.id', message: 'must be unique in the form' },
      { field: 'fields.1.options', message: 'is required for multiselect fields' },
      { field: 'fields.2.min', message: 'must not be greater than max' },
      { field: 'fields.2.maxLength', message: 'is only allowed for text and textarea fields' },
      { field: 'fields.3.maxLength', message: 'must not be greater than 2000 for text fields' },
    ]);
  });

  it('normalises a field to a stable shape, so equal definitions compare equal', () => {
    const given = { id: 'a', label: ' A ', type: 'text', maxLength: 5 } as FieldDefinition;
    expect(normalizeField(given)).toEqual({ id: 'a', label: 'A', type: 'text', required: false, maxLength: 5 });
    expect(sameFields([given], [{ maxLength: 5, required: false, type: 'text', label: 'A', id: 'a' }])).toBe(true);
    expect(sameFields([given], [{ ...given, required: true }])).toBe(false);
  });
});

describe('answers', () => {
  it.each(
    (
      [
        [field('text'), '  hi ', 'hi'],
        [field('textarea'), 'a\nb', 'a\nb'],
        [field('email'), ' a@example.com ', 'a@example.com'],
        [field('phone'), '+44 (0)20 7946 0000', '+442079460000'],
        [field('number', { min: -1, max: 1 }), -1, -1],
        [field('number'), 1e300, 1e300],
        [field('date'), '2024-02-29', '2024-02-29'],
        [field('select', { options: ['A', 'B'] }), 'B', 'B'],
        [field('multiselect', { options: ['A', 'B'] }), ['B', 'A'], ['B', 'A']],
        [field('checkbox'), false, false],
      ] as [FieldDefinition, unknown, unknown][]
    ).map(([f, value, stored]) => ({ f, value, stored })),
  )('accepts a $f.type answer (case $#)', ({ f, value, stored }) => {
    expect(answer(f, value)).toEqual({ value: stored });
  });

  it.each(
    (
      [
        [field('text'), 1],
        [field('text', { maxLength: 3 }), 'abcd'],
        [field('text'), 'x'.repeat(2001)],
        [field('text'), 'a\u0000'],
        [field('email'), 'a@b'],
        [field('email'), `${'a'.repeat(320)}@example.com`],
        [field('phone'), '02079460000'],
        [field('phone'), `+44 20 7946 0000${' '.repeat(40)}`],
        [field('number'), '1'],
        [field('number'), Number.NaN],
        [field('number', { max: 1 }), 1.0001],
        [field('date'), '2023-02-29'],
        [field('date'), '2023-2-1'],
        [field('select', { options: ['A'] }), 'a'],
        [field('multiselect', { options: ['A'] }), 'A'],
        [field('multiselect', { options: ['A'] }), ['A', 'A']],
        [field('checkbox'), 'false'],
      ] as [FieldDefinition, unknown][]
    ).map(([f, value]) => ({ f, value })),
  )('refuses a $f.type answer (case $#)', ({ f, value }) => {
    expect(answer(f, value)).toEqual({ problem: expect.any(String) });
  });
});

describe('checkSubmission', () => {
  const fields = [
    field('text', { id: 'name', required: true }),
    field('checkbox', { id: 'consent', required: true }),
    field('multiselect', { id: 'tags', options: ['a'] }),
    field('number', { id: 'age' }),
  ];

  it('keeps normalised answers and drops empty optional ones', () => {
    expect(checkSubmission(fields, { name: ' Ada ', consent: true, tags: [], age: null })).toEqual({
      values: { name: 'Ada', consent: true },
      problems: [],
    });
  });

  it('reports unknown ids first, then each field once, in form order', () => {
    expect(checkSubmission(fields, { zzz: 1, name: '  ', consent: false, age: '' }).problems).toEqual([
      { field: 'fields.zzz', message: 'is not a field of this form' },
      { field: 'fields.name', message: 'is required' },
      { field: 'fields.consent', message: 'must be checked' },
      { field: 'fields.age', message: 'must be a number' },
    ]);
  });

  it('does not take answers from the prototype', () => {
    const answers = JSON.parse('{"toString": "x"}') as Record<string, unknown>;
    expect(checkSubmission([field('text', { id: 'constructor', required: true })], answers).problems).toEqual([
      { field: 'fields.toString', message: 'is not a field of this form' },
      { field: 'fields.constructor', message: 'is required' },
    ]);
  });

  it('names at most 50 unknown ids and counts the rest; cuts long keys', () => {
    const answers = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`${i}`.padStart(70, 'k'), 1]));
    const { problems } = checkSubmission([], answers);
    expect(problems).toHaveLength(51);
    expect(problems[0].field).toBe(`fields.${'k'.repeat(64)}…`);
    expect(problems[50]).toEqual({ field: 'fields', message: 'names 10 more fields that this form does not have' });
  });
});
