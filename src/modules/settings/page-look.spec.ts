import { brandSettingsErrors, embedOriginsErrors, MAX_EMBED_ORIGINS, pageLookOf } from './page-look';

describe('the look of the pages patients open', () => {
  it('takes an https logo and a hex colour, and refuses anything else by name', () => {
    expect(brandSettingsErrors({ logoUrl: 'https://cdn.example.com/logo.png', primaryColor: '#0F766E', anything: 1 })).toEqual([]);
    expect(brandSettingsErrors({ primaryColor: '#abc' })).toEqual([]);
    for (const logoUrl of ['http://cdn.example.com/logo.png', 'https://user:pw@cdn.example.com/l.png', 'javascript:alert(1)', 42, null]) {
      expect(brandSettingsErrors({ logoUrl }).map((e) => e.field)).toEqual(['logoUrl']);
    }
    for (const primaryColor of ['red', '#12345', 'url(x)', '#0F766E;background:url(x)']) {
      expect(brandSettingsErrors({ primaryColor }).map((e) => e.field)).toEqual(['primaryColor']);
    }
  });

  it('takes embedOrigins as origins only, at most a bounded number of them', () => {
    expect(embedOriginsErrors({ embedOrigins: ['https://www.example.com', 'http://localhost:5173'] })).toEqual([]);
    for (const embedOrigins of [['https://www.example.com/'], ['https://www.example.com/book'], ['*'], 'https://a.example', [1]]) {
      expect(embedOriginsErrors({ embedOrigins }).map((e) => e.field)).toEqual(['embedOrigins']);
    }
    const many = Array.from({ length: MAX_EMBED_ORIGINS + 1 }, (_, i) => `https://s${i}.example.com`);
    expect(embedOriginsErrors({ embedOrigins: many }).map((e) => e.field)).toEqual(['embedOrigins']);
  });

  it('leaves out stored values that are no longer valid', () => {
    expect(
      pageLookOf('Riverside', { embedOrigins: ['https://a.example', 'nope'] }, { logoUrl: 'http://x.example/l.png', primaryColor: 'red' }),
    ).toEqual({
      practiceName: 'Riverside',
      logoUrl: null,
      primaryColor: null,
      embedOrigins: ['https://a.example'],
    });
  });
});
