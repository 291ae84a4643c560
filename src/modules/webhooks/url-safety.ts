import { BlockList, isIP } from 'node:net';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup } from 'node:dns';
import { lookup as lookupAsync } from 'node:dns/promises';

/**
 * Addresses a webhook may never reach (SSRF defence): loopback, private, shared (CGNAT), link-local (and
 * with it the 169.254.169.254 metadata service), documentation, benchmarking, multicast and reserved
 * ranges, and in IPv6 also unique-local (fd00:ec2::254 metadata), site-local, local-use NAT64
 * (64:ff9b:1::/48), 6to4 and Teredo addresses. 6to4 and Teredo go through relays outside the API's
 * network and host no server a webhook needs, so they are refused whole. The IPv6 forms that stand for an
 * IPv4 address (embeddedIPv4) are judged by that address instead.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

export const PRIVATE_ADDRESS = 'must not point to a loopback, private, link-local or metadata address';

/** The eight 16-bit groups of a valid IPv6 address (a dotted IPv4 tail and `::` expanded, a zone dropped). */
function groupsOf(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string | undefined): number[] => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  return tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The IPv4 address an IPv6 address stands for, in the forms that reach it: NAT64's well-known prefix
 * 64:ff9b::/96 (a DNS64 resolver answers it for IPv4-only hosts, and the gateway connects to the IPv4
 * address, private ones included), IPv4-mapped ::ffff:0:0/96, IPv4-translated ::ffff:0:0:0/96 and
 * IPv4-compatible ::/96 (with :: and ::1, which embed 0.0.0.0 and 0.0.0.1, both refused).
 */
export function embeddedIPv4(address: string): string | undefined {
  const g = groupsOf(address);
  const zeros = (from: number, to: number): boolean => g.slice(from, to).every((x) => x === 0);
  const embeds =
    (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) || // NAT64 64:ff9b::/96
    (zeros(0, 5) && g[5] === 0xffff) || // mapped
    (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) || // translated
    zeros(0, 6); // compatible
  return embeds ? [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff].join('.') : undefined;
}

/** True for an address a webhook must not reach (and for anything that is not an IP address). */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  const ipv4 = embeddedIPv4(address);
  return ipv4 !== undefined ? BLOCKED.check(ipv4, 'ipv4') : BLOCKED.check(address, 'ipv6');
}

/** A delivery refused before any byte was sent; its message is safe to record. */
export class UnsafeAddressError extends Error {
  readonly code = 'EUNSAFEADDRESS';
  constructor(detail: string) {
    super(detail);
    this.name = 'UnsafeAddressError';
  }
}

const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Why a URL cannot be a webhook endpoint, or null when it can: it must be absolute, https, without
 * credentials, and every address its host resolves to must be public. With `allowPrivate` (development
 * and tests) http and any address are allowed.
 */
export async function webhookUrlProblem(raw: string, allowPrivate: boolean): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) return 'must be an https URL';
  if (url.username || url.password) return 'must not contain credentials';
  if (allowPrivate) return null;
  const host = hostOf(url);
  if (isIP(host)) return isBlockedAddress(host) ? PRIVATE_ADDRESS : null;
  let addresses: LookupAddress[];
  try {
    addresses = await lookupAsync(host, { all: true, verbatim: true });
  } catch {
    return 'must have a host name that resolves';
  }
  return addresses.length === 0 || addresses.some((a) => isBlockedAddress(a.address)) ? PRIVATE_ADDRESS : null;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for http(s).request that refuses a host resolving to any blocked address. The socket then
 * connects to the very address checked here, so a DNS answer that changes between check and connect
 * (rebinding) cannot slip through. IP-literal hosts never reach a lookup: check them with
 * `isBlockedAddress` before the request.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const list = addresses;
    if (!list.length || list.some((a) => isBlockedAddress(a.address))) {
      return callback(new UnsafeAddressError(`address not allowed: the host resolves to a private address`), []);
    }
    if (options.all) return callback(null, list);
    callback(null, list[0].address, list[0].family);
  });
}
