import { isIP } from 'node:net';

/** What a request says of where it came from. */
export interface RequestOrigin {
  /** The address of the peer that connected. */
  readonly peerAddress: string | undefined;
  /** The `X-Forwarded-For` header, as sent. */
  readonly forwardedFor: string | string[] | undefined;
}

/** Stands for a peer whose address the socket no longer knows (it closed): all such requests count as one. */
const UNKNOWN_PEER = 'unknown';

/**
 * The address failed authentication is counted against. With `trustedProxyHops` 0 it is the peer's;
 * with n, it is the address the n-th proxy in front of the process appended to `X-Forwarded-For`,
 * counted from the right (proxy-addr's "trust the first n hops"). Only the rightmost entries can be
 * trusted: a client writes whatever it likes to the left of what its proxies append, so taking the
 * leftmost would let an attacker pose as any address, rotating through addresses to escape the
 * throttle or throttling someone else's. An entry that is not an address (a proxy that does not
 * append, a misconfigured count) ends the walk at the last trusted address.
 *
 * IPv6 addresses count by their /64 prefix, the block one subscriber line or host is given: one
 * client can change the rest at will.
 */
export function clientAddressOf(origin: RequestOrigin, trustedProxyHops: number): string {
  const forwarded = [origin.forwardedFor ?? []].flat().flatMap((header) => header.split(','));
  let address = origin.peerAddress ?? UNKNOWN_PEER;
  for (let hop = 1; hop <= trustedProxyHops && hop <= forwarded.length; hop += 1) {
    const appended = forwarded[forwarded.length - hop].trim();
    if (isIP(appended) === 0) break;
    address = appended;
  }
  return addressBlockOf(address);
}

const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** An IPv4 address as it is (also when written IPv4-mapped); an IPv6 address as its /64 prefix. */
function addressBlockOf(address: string): string {
  const mapped = IPV4_MAPPED.exec(address)?.[1];
  if (mapped !== undefined) return mapped;
  if (isIP(address) !== 6) return address;
  return `${firstHextets(address.split('%', 1)[0], 4).join(':')}::/64`;
}

/** The first `count` 16-bit groups of an IPv6 address, `::` expanded, without leading zeros. */
function firstHextets(address: string, count: number): string[] {
  const [head, tail] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  // An embedded IPv4 address at the end stands for two groups; only the count of groups matters here.
  const tailGroups =
    tail === undefined || tail === '' ? [] : tail.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group]));
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].slice(0, count).map((group) => parseInt(group, 16).toString(16));
}
