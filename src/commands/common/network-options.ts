import { isIP } from 'node:net';
import { InvalidArgumentError } from 'commander';

/*
 * Option parsers that need node:net, apart from src/commands/common/options.ts so that commands without network
 * options (cai sign, cai verify) do not load it at start-up.
 */

/** An IPv4 or IPv6 address (no host names: a local address to bind to). */
export function parseIpAddress(value: string): string {
  if (isIP(value) === 0) throw new InvalidArgumentError('expected an IPv4 or IPv6 address such as 127.0.0.2.');
  return value;
}

/** An IPv4 or IPv6 address or CIDR block, such as `203.0.113.0/24` or `2001:db8::/32` (§5.7). */
export function parseCidrOption(value: string): string {
  const [address = '', prefix, ...rest] = value.trim().split('/');
  const version = isIP(address);
  const max = version === 4 ? 32 : 128;
  if (
    version === 0 ||
    rest.length > 0 ||
    (prefix !== undefined && (!/^[0-9]{1,3}$/.test(prefix) || Number(prefix) > max))
  ) {
    throw new InvalidArgumentError(
      'expected an address or CIDR block such as 203.0.113.0/24, 2001:db8::/32 or 127.0.0.1.',
    );
  }
  return value.trim();
}
