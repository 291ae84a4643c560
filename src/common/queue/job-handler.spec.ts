import { describeError, JobFailure } from './job-handler';

describe('describeError', () => {
  it('names the class and code of an error, never its message', () => {
    const named = (name: string, message: string, code?: string): Error => Object.assign(new Error(message), { name, code });
    expect(describeError(named('QueryFailedError', 'duplicate key value (email)=(ada@example.test)', '23505'))).toBe(
      'QueryFailedError (23505)',
    );
    expect(describeError(named('Error', 'connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe('Error (ECONNREFUSED)');
    expect(describeError(named('ReplyError', "CROSSSLOT Keys in request don't hash to the same slot"))).toBe('ReplyError (CROSSSLOT)');
    expect(describeError(named('ReplyError', 'MOVED 3999 127.0.0.1:7001'))).toBe('ReplyError (MOVED)');
    expect(describeError(named('ReplyError', 'value is not an integer'))).toBe('ReplyError');
    expect(describeError(named('TypeError', 'Cannot read properties of undefined'))).toBe('TypeError');
    expect(describeError(new JobFailure('the receiver answered 500'))).toBe('the receiver answered 500');
  });
});
