import { embeddedIPv4, isBlockedAddress, PRIVATE_ADDRESS, webhookUrlProblem } from './url-safety';

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

  // The IPv6 forms that stand for an IPv4 address are judged by it. request-filtering-agent (ipaddr.js's
  // ranges) refuses NAT64, mapped, translated, 6to4 and Teredo whole but takes IPv4-compatible ::/96 for
  // unicast: ::a9fe:a9fe would pass it.
  it.each([
    ['64:ff9b::a00:1', '10.0.0.1'],
    ['64:ff9b::a9fe:a9fe', '169.254.169.254'],
    ['64:ff9b::127.0.0.1', '127.0.0.1'],
    ['64:FF9B:0:0:0:0:C0A8:1', '192.168.0.1'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['::ffff:a9fe:a9fe', '169.254.169.254'],
    ['0:0:0:0:0:ffff:7f00:1', '127.0.0.1'],
    ['::ffff:0:a00:1', '10.0.0.1'],
    ['::ffff:0:a9fe:a9fe', '169.254.169.254'],
    ['::a00:1', '10.0.0.1'],
    ['::a9fe:a9fe', '169.254.169.254'],
    ['::127.0.0.1', '127.0.0.1'],
    ['::', '0.0.0.0'],
    ['::1', '0.0.0.1'],
  ])('blocks %s, which stands for %s', (address, ipv4) => {
    expect(embeddedIPv4(address)).toBe(ipv4);
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each([
    ['64:ff9b::808:808', '8.8.8.8'],
    ['64:ff9b::93.184.216.34', '93.184.216.34'],
    ['::ffff:8.8.8.8', '8.8.8.8'],
    ['::ffff:0:808:808', '8.8.8.8'],
  ])('allows %s, which stands for the public %s', (address, ipv4) => {
    expect(embeddedIPv4(address)).toBe(ipv4);
    expect(isBlockedAddress(address)).toBe(false);
  });

  it.each([
    '2002:a00:1::1', // 6to4 of 10.0.0.1
    '2002:808:808::1', // 6to4 of a public address: relayed outside our network, refused whole
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    '2001::a00:1',
    '64:ff9b:1::808:808', // local-use NAT64
    '64:ff9b:1::a00:1',
    'fe80::a00:1',
  ])('blocks the relayed or local form %s whatever it carries', (address) => {
    expect(embeddedIPv4(address)).toBeUndefined();
    expect(isBlockedAddress(address)).toBe(true);
  });

  it.each(['2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '64:ff9c::a00:1', '1::a00:1', '::ffff:1:a00:1'])(
    'sees no IPv4 address in %s',
    (address) => expect(embeddedIPv4(address)).toBeUndefined(),
  );

  it.each([
    ['http://example.com/hook', 'must be an https URL'],
    ['ftp://example.com/hook', 'must be an https URL'],
    ['https://user:pass@example.com/hook', 'must not contain credentials'],
    ['https://127.0.0.1/hook', PRIVATE_ADDRESS],
    ['https://10.0.0.8/hook', PRIVATE_ADDRESS],
    ['https://169.254.169.254/latest/meta-data', PRIVATE_ADDRESS],
    ['https://[::1]/hook', PRIVATE_ADDRESS],
    ['https://[64:ff9b::a00:1]/hook', PRIVATE_ADDRESS],
    ['https://[64:ff9b::a9fe:a9fe]/latest/meta-data', PRIVATE_ADDRESS],
    ['https://[::a9fe:a9fe]/hook', PRIVATE_ADDRESS],
    ['https://[::ffff:169.254.169.254]/hook', PRIVATE_ADDRESS],
    ['https://[::ffff:0:a00:1]/hook', PRIVATE_ADDRESS],
    ['https://localhost/hook', PRIVATE_ADDRESS],
    ['not a url', 'must be an absolute URL'],
  ])('refuses %s', async (url, problem) => expect(await webhookUrlProblem(url, false)).toBe(problem));

  it('allows http and loopback when private URLs are allowed', async () => {
    expect(await webhookUrlProblem('http://127.0.0.1:4100/hook', true)).toBeNull();
    expect(await webhookUrlProblem('https://[::1]/hook', true)).toBeNull();
    expect(await webhookUrlProblem('ftp://127.0.0.1/hook', true)).toBe('must be an https URL');
  });
});
