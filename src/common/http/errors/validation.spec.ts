import { ArgumentMetadata } from '@nestjs/common';
import { IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { ValidationFailedException } from './problem';
import { createValidationPipe } from './validation';

class Body {
  @IsString()
  @Length(1, 10)
  @Matches(/\S/, { message: 'must not be blank' })
  name!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

async function errorsOf(value: unknown, type: ArgumentMetadata['type'] = 'body'): Promise<unknown> {
  try {
    await createValidationPipe().transform(value, { type, metatype: Body });
  } catch (error) {
    return (error as ValidationFailedException).extensions.errors;
  }
  return undefined;
}

describe('the validation pipe: one message per field, the most specific', () => {
  it('says a missing field is required, and nothing else', async () => {
    expect(await errorsOf({})).toEqual([{ field: 'name', message: 'is required' }]);
    expect(await errorsOf({ name: null })).toEqual([{ field: 'name', message: 'must not be null' }]);
  });

  it('names a wrong type before a format or a length', async () => {
    expect(await errorsOf({ name: 42 })).toEqual([{ field: 'name', message: 'must be a string' }]);
    expect(await errorsOf({ name: 'a', limit: ['1', '2'] })).toEqual([{ field: 'limit', message: 'must be an integer number' }]);
  });

  it('names a format before a length', async () => {
    expect(await errorsOf({ name: '' })).toEqual([{ field: 'name', message: 'must not be blank' }]);
    expect(await errorsOf({ name: 'x'.repeat(11) })).toEqual([
      { field: 'name', message: expect.stringMatching(/shorter than or equal to 10/) },
    ]);
  });

  it('refuses keys named after Object.prototype members as unknown properties', async () => {
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const query = Object.assign(Object.create(null) as object, { [key]: '1' });
      expect(await errorsOf(query, 'query')).toEqual([{ field: key, message: 'is not a known property' }]);
    }
    expect(await errorsOf({ name: 'a', zzz: 1 })).toEqual([{ field: 'zzz', message: 'is not a known property' }]);
  });
});
