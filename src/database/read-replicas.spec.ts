import { nextInRotation, outOfRotation, replicaLagMs } from './read-replicas';

describe('read replicas', () => {
  it('counts a standby that replayed all it received as current, however old its last replayed commit', () => {
    expect(replicaLagMs({ standby: true, caughtUp: true, replayAgeMs: 3_600_000 })).toBe(0);
    expect(replicaLagMs({ standby: true, caughtUp: true, replayAgeMs: null })).toBe(0);
  });

  it('counts a standby with WAL left to replay (or no WAL receiver) as behind by the age of its last replayed commit', () => {
    expect(replicaLagMs({ standby: true, caughtUp: false, replayAgeMs: 1234.5 })).toBe(1234.5);
    expect(replicaLagMs({ standby: true, caughtUp: null, replayAgeMs: 80 })).toBe(80);
    // The replica's clock a little ahead of the primary's is no lag.
    expect(replicaLagMs({ standby: true, caughtUp: false, replayAgeMs: -15 })).toBe(0);
  });

  it('counts a standby that has replayed nothing since it started as too far behind, and a primary as current', () => {
    expect(replicaLagMs({ standby: true, caughtUp: false, replayAgeMs: null })).toBe(Infinity);
    expect(replicaLagMs({ standby: false, caughtUp: null, replayAgeMs: null })).toBe(0);
  });

  it('takes a replica out of rotation when it did not answer or lags more than allowed', () => {
    expect(outOfRotation(undefined, 5000)).toBe('unreachable');
    expect(outOfRotation(5001, 5000)).toBe('lagging');
    expect(outOfRotation(Infinity, 5000)).toBe('lagging');
    expect(outOfRotation(5000, 5000)).toBeUndefined();
    expect(outOfRotation(0, 0)).toBeUndefined();
  });

  it('takes the replicas in rotation in turn, and none when none is', () => {
    const [a, b, c] = [{ serving: true }, { serving: false }, { serving: true }];
    expect([0, 1, 2, 3].map((turn) => nextInRotation([a, b, c], turn))).toEqual([a, c, a, c]);
    expect(nextInRotation([{ serving: false }], 7)).toBeUndefined();
    expect(nextInRotation([], 0)).toBeUndefined();
  });
});
