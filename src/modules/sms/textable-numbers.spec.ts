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

  it('leaves a string that is no phone number to the format check', () => {
    expect(untextableReason('not a number')).toBeUndefined();
  });
});
