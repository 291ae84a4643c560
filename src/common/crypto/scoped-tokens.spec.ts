import { AppCrypto } from './app-crypto';
import { ScopedTokens } from './scoped-tokens';

const crypto = new AppCrypto('c'.repeat(16) + 'scoped-tokens-secret');
const subject = { tenantId: '0190a1b2-0000-7000-8000-000000000001', mode: 'test' as const, id: '0190a1b2-0000-7000-8000-000000000002' };
const decode = (token: string): string => Buffer.from(token.split('.')[0], 'base64url').toString('utf8');

describe('ScopedTokens', () => {
  const tokens = new ScopedTokens(crypto, 'unsubscribe-token', 'p');

  it('signs {t, m, <field>} in that order with signToken, so links already sent keep verifying', () => {
    const token = tokens.sign(subject);
    expect(decode(token)).toBe(`{"t":"${subject.tenantId}","m":"test","p":"${subject.id}"}`);
    expect(token).toBe(crypto.signToken('unsubscribe-token', { t: subject.tenantId, m: 'test', p: subject.id }));
    expect(tokens.verify(token)).toEqual(subject);
  });

  it('refuses another purpose, another field, an altered token and payloads that do not name a scoped record', () => {
    const token = tokens.sign(subject);
    expect(new ScopedTokens(crypto, 'appointment-manage-token', 'p').verify(token)).toBeNull();
    expect(new ScopedTokens(crypto, 'unsubscribe-token', 'a').verify(token)).toBeNull();
    expect(tokens.verify(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    for (const payload of [[], 'x', { t: 'nope', m: 'test', p: subject.id }, { t: subject.tenantId, m: 'prod', p: subject.id }]) {
      expect(tokens.verify(crypto.signToken('unsubscribe-token', payload))).toBeNull();
    }
  });
});
