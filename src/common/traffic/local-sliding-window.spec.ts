import type { RateLimitWindow } from '../../config/app-config';
import { LocalSlidingWindow } from './local-sliding-window';

const SECOND: RateLimitWindow = { name: 'second', seconds: 1, limit: 2 };
const HOUR: RateLimitWindow = { name: 'hour', seconds: 3600, limit: 3 };

describe('LocalSlidingWindow (the rate limits while Redis is unreachable)', () => {
  let now: number;
  beforeEach(() => {
    now = 1_000_000;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('holds a subject to every window, and a refused request uses no quota', () => {
    const local = new LocalSlidingWindow();
    const hit = (): boolean => local.evaluate('key:a', [SECOND, HOUR], true).allowed;
    expect([hit(), hit(), hit()]).toEqual([true, true, false]);
    now += 1_000; // the second window has slid past both
    expect(hit()).toBe(true);
    const refused = local.evaluate('key:a', [SECOND, HOUR], true);
    expect(refused.allowed).toBe(false);
    expect(refused.windows.map((w) => w.count)).toEqual([1, 3]);
    // The hour frees a request when its oldest entry leaves it.
    expect(refused.windows[1].freesInMs).toBe(3_600_000 - 1_000);
    expect(local.evaluate('key:b', [SECOND, HOUR], true).allowed).toBe(true);
  });

  it('answers when the sliding window frees a request, as the Redis script does', () => {
    const local = new LocalSlidingWindow();
    local.evaluate('ip:x', [SECOND], true);
    now += 400;
    local.evaluate('ip:x', [SECOND], true);
    now += 100;
    const full = local.evaluate('ip:x', [SECOND], true);
    expect(full.allowed).toBe(false);
    expect(full.windows[0]).toMatchObject({ count: 2, freesInMs: 500 });
    // A read records nothing.
    now += 500;
    expect(local.evaluate('ip:x', [SECOND], false).windows[0].count).toBe(1);
    expect(local.evaluate('ip:x', [SECOND], false).windows[0].count).toBe(1);
  });
});
