import { BadRequestException, HttpException, NotFoundException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ApiException, ValidationFailedException } from './problem';
import { loggableError, toProblem } from './problem-details.filter';

describe('toProblem', () => {
  it('keeps an ApiException as it is, with extensions and headers', () => {
    const p = toProblem(new ApiException(409, 'slot_unavailable', 'Slot unavailable', 'taken', { alternatives: [1] }, { 'x-a': 'b' }));
    expect(p.body).toEqual({
      type: 'about:blank',
      status: 409,
      code: 'slot_unavailable',
      title: 'Slot unavailable',
      detail: 'taken',
      alternatives: [1],
    });
    expect(p.headers).toEqual({ 'x-a': 'b' });
  });

  it('lists field errors', () => {
    const p = toProblem(new ValidationFailedException([{ field: 'email', message: 'must be an email address' }]));
    expect(p.body).toMatchObject({ status: 400, code: 'validation_failed', detail: '1 field is invalid', errors: [{ field: 'email' }] });
  });

  it('maps Nest HTTP exceptions by status', () => {
    expect(toProblem(new NotFoundException()).body.code).toBe('not_found');
    expect(toProblem(new BadRequestException('x')).body.status).toBe(400);
  });

  it("maps Fastify's body errors", () => {
    const tooLarge = new HttpException('too large', 413, { cause: Object.assign(new Error('x'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE' }) });
    expect(toProblem(tooLarge).body.code).toBe('payload_too_large');
    const media = new HttpException('media', 415, { cause: Object.assign(new Error('x'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE' }) });
    expect(toProblem(media).body.code).toBe('unsupported_media_type');
  });

  it('answers 400 for every PostgreSQL data exception (SQLSTATE class 22) and a null for a NOT NULL column, never 500', () => {
    for (const code of ['22P02', '22021', '22P05', '22003', '22007', '22008', '22009']) {
      const error = new QueryFailedError('SELECT', [], Object.assign(new Error('invalid input'), { code }));
      expect([code, toProblem(error).body]).toEqual([code, expect.objectContaining({ status: 400, code: 'validation_failed' })]);
    }
    const nullSent = new QueryFailedError('UPDATE', [], Object.assign(new Error('null value in column'), { code: '23502' }));
    expect(toProblem(nullSent).body).toMatchObject({ status: 400, code: 'validation_failed' });
    const fault = new QueryFailedError('SELECT', [], Object.assign(new Error('relation does not exist'), { code: '42P01' }));
    expect(toProblem(fault).body.status).toBe(500);
  });

  it("maps Fastify's URL and framing errors to the documented codes", () => {
    const fastify = (code: string, statusCode: number): Error => Object.assign(new Error('x'), { code, statusCode });
    expect(toProblem(fastify('FST_ERR_BAD_URL', 400)).body).toMatchObject({ status: 404, code: 'not_found' });
    expect(toProblem(fastify('FST_ERR_MAX_PARAM_LENGTH', 414)).body).toMatchObject({ status: 404, code: 'not_found' });
    expect(toProblem(fastify('FST_ERR_CTP_INVALID_CONTENT_LENGTH', 400)).body).toMatchObject({ status: 400, code: 'bad_request' });
    expect(toProblem(fastify('FST_ERR_SOMETHING_NEW', 400)).body).toMatchObject({ status: 400, code: 'validation_failed' });
  });

  it('answers 503 when a backing service is unreachable', () => {
    const p = toProblem(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    expect(p.body).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(p.headers['retry-after']).toBe('1');
  });

  it('hides internals of unexpected errors', () => {
    const error = new QueryFailedError('SELECT secret FROM api_keys', [], new Error('relation "x" does not exist'));
    const p = toProblem(error);
    expect(p.body).toEqual({
      type: 'about:blank',
      status: 500,
      code: 'internal_error',
      title: 'Internal error',
      detail: expect.any(String),
    });
    expect(JSON.stringify(p.body)).not.toMatch(/SELECT|relation|api_keys|at /);
    expect(toProblem(new TypeError('boom at /src/x.ts:1')).body.detail).not.toContain('boom');
  });
});

describe('loggableError', () => {
  it('never carries query parameters or driver detail', () => {
    const error = new QueryFailedError('INSERT INTO patients (email) VALUES ($1)', ['jane@example.com'], {
      code: '23505',
      detail: 'Key (email)=(jane@example.com) already exists.',
      table: 'patients',
      constraint: 'UQ_X',
    } as unknown as Error);
    const logged = JSON.stringify(loggableError(error));
    expect(logged).not.toContain('jane@example.com');
    expect(loggableError(error)).toEqual({
      type: 'QueryFailedError',
      code: '23505',
      table: 'patients',
      constraint: 'UQ_X',
      sqlClass: '23',
      routine: undefined,
    });
  });
});
