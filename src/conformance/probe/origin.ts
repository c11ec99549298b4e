/**
 * §5.7: the platform registers the provider's egress addresses; a request from any other is refused. The origin is
 * where the connection comes from. A header the client writes (X-Forwarded-For, Forwarded, X-Real-IP) says nothing
 * the client could not forge; behind the platform's own proxy, only the hop that proxy added is the origin.
 */
import { connect } from 'node:net';
import { bareHostname } from '../../http/loopback.js';
import type { ProbeScope } from './scope.js';

/** The headers a client could write to claim another origin than its own, each naming `address`. */
export function claimedOriginHeaders(address: string): Record<string, string> {
  const forwardedFor = address.includes(':') ? `"[${address}]"` : address;
  return { 'X-Forwarded-For': address, Forwarded: `for=${forwardedFor}`, 'X-Real-IP': address };
}

/**
 * The local address cai's requests to the target leave from (the one the run's accepted requests came from, unless
 * a NAT lies between): read from a connection opened for the purpose, once per run. Undefined where none opens.
 */
export function usualSourceAddress(scope: ProbeScope): Promise<string | undefined> {
  return scope.session.once('usual-source-address', () => {
    const url = new URL(scope.session.postUrl);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const host = bareHostname(url);
    return new Promise<string | undefined>((resolve) => {
      const socket = connect({ host, port, timeout: 5_000 });
      const done = (address: string | undefined) => {
        socket.destroy();
        resolve(address);
      };
      socket.once('connect', () => done(socket.localAddress?.replace(/^::ffff:/, '')));
      socket.once('timeout', () => done(undefined));
      socket.once('error', () => done(undefined));
    });
  });
}
