import { setClause } from './set-clause';

describe('setClause', () => {
  it('assigns the defined members, numbered from the first parameter, keeping nulls', () => {
    expect(setClause({ name: 'x', description: null, status: undefined, steps: '[]' }, 4)).toEqual({
      sql: 'name = $4, description = $5, steps = $6',
      params: ['x', null, '[]'],
    });
  });

  it('answers an empty clause when nothing is set', () => {
    expect(setClause({ name: undefined }, 3)).toEqual({ sql: '', params: [] });
  });
});
