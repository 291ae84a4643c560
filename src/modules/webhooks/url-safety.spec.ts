import { isBlockedAddress, PRIVATE_ADDRESS, webhookUrlProblem } from './url-safety';

describe('webhook URL safety', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    'fe80::1',
    'fd00:ec2::254',
    'fc00::1',
    '2002:7f00:1::1',
    'not an address',
  ])('blocks %s', (address) => expect(isBlockedAddress(address)).toBe(true));

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111'])('allows the public address %s', (address) =>
    expect(isBlockedAddress(address)).toBe(false),
  );

  it.each([
    ['http://example.com/hook', 'must be an https URL'],
    ['ftp://example.com/hook', 'must be an https URL'],
    ['https://user:pass@example.com/hook', 'must not contain credentials'],
    ['https://127.0.0.1/hook', PRIVATE_ADDRESS],
    ['https://10.0.0.8/hook', PRIVATE_ADDRESS],
    ['https://169.254.169.254/latest/meta-data', PRIVATE_ADDRESS],
    ['https://[::1]/hook', PRIVATE_ADDRESS],
    ['https://localhost/hook', PRIVATE_ADDRESS],
    ['not a url', 'must be an absolute URL'],
  ])('refuses %s', async (url, problem) => expect(await webhookUrlProblem(url, false)).toBe(problem));

  it('allows http and loopback when private URLs are allowed', async () => {
    expect(await webhookUrlProblem('http://127.0.0.1:4100/hook', true)).toBeNull();
    expect(await webhookUrlProblem('https://[::1]/hook', true)).toBeNull();
    expect(await webhookUrlProblem('ftp://127.0.0.1/hook', true)).toBe('must be an https URL');
  });
});
