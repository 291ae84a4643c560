import { QueryFailedError } from 'typeorm';
import { constraintViolation, isDeadlock, retryOnDeadlock, violates } from './database-errors';

const failed = (code: string, constraint?: string): QueryFailedError =>
  new QueryFailedError('INSERT …', [], Object.assign(new Error('violation'), { code, constraint }));

describe('constraintViolation', () => {
  it.each([
    ['23505', 'unique'],
    ['23P01', 'exclusion'],
    ['23503', 'foreign_key'],
  ])('turns SQLSTATE %s into a %s violation with its constraint', (code, kind) => {
    expect(constraintViolation(failed(code, 'UQ_X'))).toEqual({ kind, constraint: 'UQ_X' });
    expect(violates(failed(code, 'UQ_X'), 'UQ_X')).toBe(true);
    expect(violates(failed(code, 'UQ_X'), 'UQ_Y')).toBe(false);
  });

  it('answers undefined for other errors, which stay faults', () => {
    expect(constraintViolation(failed('23502', 'NN_X'))).toBeUndefined(); // not null: a bug, not a conflict
    expect(constraintViolation(failed('23505'))).toBeUndefined();
    expect(constraintViolation(Object.assign(new Error('x'), { code: '23505', constraint: 'UQ_X' }))).toBeUndefined();
  });
});

describe('isDeadlock', () => {
  it('is true only for a failed statement with SQLSTATE 40P01', () => {
    expect(isDeadlock(failed('40P01'))).toBe(true);
    expect(isDeadlock(failed('23P01', 'EX_X'))).toBe(false);
    expect(isDeadlock(Object.assign(new Error('x'), { code: '40P01' }))).toBe(false);
  });
});

describe('retryOnDeadlock', () => {
  it('runs the work again after a deadlock and answers its result', async () => {
    const work = jest.fn().mockRejectedValueOnce(failed('40P01')).mockResolvedValueOnce('booked');
    await expect(retryOnDeadlock(work)).resolves.toBe('booked');
    expect(work).toHaveBeenCalledTimes(2);
  });

  it('rethrows the last deadlock after the given attempts, and any other error at once', async () => {
    const deadlocked = jest.fn().mockRejectedValue(failed('40P01'));
    await expect(retryOnDeadlock(deadlocked, 3)).rejects.toBeInstanceOf(QueryFailedError);
    expect(deadlocked).toHaveBeenCalledTimes(3);
    const violation = failed('23P01', 'EX_X');
    const overlap = jest.fn().mockRejectedValue(violation);
    await expect(retryOnDeadlock(overlap)).rejects.toBe(violation);
    expect(overlap).toHaveBeenCalledTimes(1);
  });
});
