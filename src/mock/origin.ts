import { BlockList, isIP } from 'node:net';

/** One `--allow-origin` entry: an address or a CIDR block, IPv4 or IPv6. */
export interface Cidr {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** Parses `203.0.113.0/24`, `2001:db8::/32`, or a bare address (a /32 or /128). Returns undefined when malformed. */
export function parseCidr(text: string): Cidr | undefined {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  if (rest.length > 0) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, family };
  if (!/^[0-9]{1,3}$/.test(prefixText) || Number(prefixText) > max) return undefined;
  return { address, prefix: Number(prefixText), family };
}

const MAPPED_IPV4 = /^::ffff:([0-9]{1,3}(?:\.[0-9]{1,3}){3})$/i;

/**
 * §5.7: only registered egress addresses may call. node:net's BlockList matches IPv4 rules against
 * IPv4-mapped IPv6 peers (`::ffff:127.0.0.1`, what a dual-stack socket reports) and the reverse.
 */
export class OriginAllowList {
  private readonly list = new BlockList();

  constructor(readonly entries: readonly Cidr[]) {
    for (const entry of entries) this.list.addSubnet(entry.address, entry.prefix, entry.family);
  }

  allows(remoteAddress: string | undefined): boolean {
    if (!remoteAddress) return false;
    const mapped = MAPPED_IPV4.exec(remoteAddress);
    if (mapped) return this.list.check(mapped[1] as string, 'ipv4');
    const version = isIP(remoteAddress);
    if (version === 0) return false;
    return this.list.check(remoteAddress, version === 4 ? 'ipv4' : 'ipv6');
  }
}
