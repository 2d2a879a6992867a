import { BlockList, isIP } from 'node:net';

/**
 * The peers (`GUIDEPOST_TRUSTED_PROXIES`: IP addresses and CIDR blocks, separated by commas) whose
 * `X-Forwarded-For`, `X-Forwarded-Host` and `X-Forwarded-Proto` are believed. Any other peer is a
 * client, and what it writes in those headers is its own word, never taken for where the request came
 * from or which host it was sent to. An IPv4-mapped IPv6 peer (`::ffff:127.0.0.1`, as a server bound to
 * `::` sees IPv4 clients) is judged as its IPv4 address.
 */
export class TrustedProxies {
  private constructor(
    private readonly blocks: BlockList,
    /** The entries as written, for logs and documents. */
    readonly entries: readonly string[],
  ) {}

  /** Reads the setting; throws a `RangeError` naming the first entry that is neither an address nor a CIDR block. */
  static parse(list: string): TrustedProxies {
    const entries = list.split(',').map((entry) => entry.trim());
    const blocks = new BlockList();
    for (const entry of entries) addEntry(blocks, entry);
    return new TrustedProxies(blocks, entries);
  }

  trusts(address: string | undefined): boolean {
    if (address === undefined) return false;
    const family = isIP(address);
    return family !== 0 && this.blocks.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

function addEntry(blocks: BlockList, entry: string): void {
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (family === 0 || rest.length > 0) throw new RangeError(`${JSON.stringify(entry)} is neither an IP address nor a CIDR block`);
  if (prefix === undefined) return blocks.addAddress(address, type);
  const bits = /^[0-9]{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  const maxBits = family === 4 ? 32 : 128;
  if (!(bits <= maxBits)) throw new RangeError(`${JSON.stringify(entry)}: the prefix length must be 0 to ${maxBits}`);
  blocks.addSubnet(address, bits, type);
}
