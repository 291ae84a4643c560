import { MAX_SMS_COUNTRIES, practiceSettingsErrors, smsCountriesOf } from './practice-settings';

describe('practiceSettingsErrors', () => {
  it.each([
    [['US'], null],
    [['US', 'GB'], null],
    [['XX'], /no ISO 3166-1 alpha-2 country code/],
    [['us'], /no ISO 3166-1 alpha-2 country code in upper case/],
    [['UK'], /no ISO 3166-1 alpha-2 country code/],
    [[1], /no ISO 3166-1 alpha-2 country code/],
    ['US', /must be a list/],
    [{ US: true }, /must be a list/],
    [[], /at least one country/],
  ])('smsCountries %j', (smsCountries, message) => {
    const errors = practiceSettingsErrors({ smsCountries }, []);
    expect(errors).toEqual(message ? [{ field: 'smsCountries', message: expect.stringMatching(message) }] : []);
  });

  it(`takes at most ${MAX_SMS_COUNTRIES} countries`, () => {
    const many = ['US', 'GB', 'FR', 'DE', 'IE', 'ES', 'IT', 'PT', 'NL', 'BE'];
    const list = Array.from({ length: MAX_SMS_COUNTRIES + 1 }, (_, i) => many[i % many.length]);
    expect(practiceSettingsErrors({ smsCountries: list }, [])).toEqual([{ field: 'smsCountries', message: 'names at most 50 countries' }]);
    expect(practiceSettingsErrors({ smsCountries: list.slice(1) }, [])).toEqual([]);
  });

  it('lets null delete smsCountries, and refuses smsFromNumber however it comes', () => {
    expect(practiceSettingsErrors({ name: 'Acme' }, ['smsCountries'])).toEqual([]);
    expect(practiceSettingsErrors({ smsFromNumber: '+15005550006' }, []).map((e) => e.field)).toEqual(['smsFromNumber']);
    expect(practiceSettingsErrors({}, ['smsFromNumber']).map((e) => e.field)).toEqual(['smsFromNumber']);
  });
});

describe('smsCountriesOf', () => {
  it('reads the stored list, or null when there is none', () => {
    expect(smsCountriesOf({ smsCountries: ['US', 'GB'] })).toEqual(['US', 'GB']);
    expect(smsCountriesOf({})).toBeNull();
    expect(smsCountriesOf({ smsCountries: [] })).toBeNull();
  });
});
