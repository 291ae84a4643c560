import { untextableReason } from './textable-numbers';

describe('untextableReason', () => {
  it.each([
    ['+19005550100', /premium-rate/], // US 900
    ['+449012345678', /premium-rate/], // UK 090
    ['+979123456789', /international network/], // international premium rate
    ['+882123456789', /international network/], // international networks
    ['+870123456789', /international network/], // Inmarsat
    ['+881612345678', /international network/], // Iridium: typed mobile, billed like premium
    ['+18005550100', /toll-free/],
    ['+447012345678', /personal/], // UK 070 follow-me
    ['+5612345678', /no assigned range/],
  ])('refuses %s', (number, reason) => {
    expect(untextableReason(number)).toMatch(reason);
  });

  it.each(['+12015550123', '+447400123456', '+442079460000', '+33612345678'])('allows %s (mobile or fixed line)', (number) => {
    expect(untextableReason(number)).toBeNull();
  });

  describe('with the allowed countries', () => {
    it('refuses a number of another country, naming it and the allowed ones', () => {
      expect(untextableReason('+447400123456', ['US'])).toBe(
        'is a number of GB; the practice texts only US (practice settings smsCountries)',
      );
      expect(untextableReason('+33612345678', ['US', 'GB'])).toMatch(/^is a number of FR; the practice texts only US, GB/);
    });

    it('allows a number of an allowed country, and any country without a list', () => {
      expect(untextableReason('+447400123456', ['US', 'GB'])).toBeNull();
      expect(untextableReason('+12015550123', ['US'])).toBeNull();
      expect(untextableReason('+447400123456', null)).toBeNull();
      expect(untextableReason('+447400123456')).toBeNull();
    });

    it('still refuses a non-personal number of an allowed country, for what it is', () => {
      expect(untextableReason('+449012345678', ['GB'])).toMatch(/premium-rate/);
      expect(untextableReason('+881612345678', ['US'])).toMatch(/international network/);
    });
  });

  it('leaves a string that is no phone number to the format check', () => {
    expect(untextableReason('not a number')).toBeUndefined();
  });
});
