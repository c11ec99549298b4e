/**
 * The one builder of transport options, for every command that opens a connection (send-job, send-event, replay,
 * conformance run, the provider mock's callbacks): TLS 1.2 or above (§5.8, see client.ts), `--ca` trusted beside the
 * bundled roots, `--insecure`, the proxy (`--proxy`, else the environment's), the local address (§5.7), the connect
 * time-out and the pool size. It returns data, with what the user must be told, for the command to print.
 */
import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';
import { codedError, errnoCode, errorMessage, usageError } from '../errors.js';
import { readPem } from '../input.js';
import type { Io } from '../io.js';
import { createDispatcher, proxyFromEnv, type ClientOptions, type Dispatcher } from './client.js';
import { parseUrl } from './address.js';
import { bareHostname } from './loopback.js';

/**
 * The transport flags as given, all optional: the client's options, `--ca` a PEM file, and without `--proxy` the
 * environment's proxy for the target (HTTPS_PROXY / HTTP_PROXY, minus NO_PROXY).
 */
export type TransportFlags = Omit<ClientOptions, 'ca'> & { ca?: string };

export interface Transport {
  client: ClientOptions;
  /** To show as context: the proxy in use, its password hidden. */
  info: string[];
}

/** Reads `--ca` and finds the proxy; `target` is the URL the connections go to, when one is known. */
export async function resolveTransport(flags: TransportFlags, io: Io, target?: string): Promise<Transport> {
  const ca = flags.ca !== undefined ? await readPem(flags.ca, io, 'ca') : undefined;
  const proxy = flags.proxy ?? (target !== undefined ? environmentProxy(io.env, target) : undefined);
  // The connections go to the proxy when there is one: it is the peer the local address must suit.
  if (flags.localAddress) await checkLocalAddress(flags.localAddress, proxy ?? target);
  const client: ClientOptions = {
    ...(ca ? { ca } : {}),
    ...(flags.insecure ? { insecure: true } : {}),
    ...(proxy ? { proxy } : {}),
    ...(flags.localAddress ? { localAddress: flags.localAddress } : {}),
    ...(flags.connectTimeoutMs !== undefined ? { connectTimeoutMs: flags.connectTimeoutMs } : {}),
    ...(flags.connections !== undefined ? { connections: flags.connections } : {}),
  };
  return {
    client,
    info: proxy ? [`via proxy ${redactUrl(proxy)}`] : [],
  };
}

/** The variables a proxy is read from (client.ts, proxyFromEnv), to name the one that gave a value. */
const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'] as const;

/**
 * The environment's proxy for `target`, checked before any request as the proxy flag's value is: a value that is
 * no URL with a host (`ht!tp`, `proxy:3128`) is a usage error naming its variable, never its value (it may hold a
 * password), rather than undici's bare "Invalid URL".
 */
function environmentProxy(env: NodeJS.ProcessEnv, target: string): string | undefined {
  const proxy = proxyFromEnv(env, target);
  if (proxy === undefined || hostOf(proxy)) return proxy;
  const name = PROXY_VARIABLES.find((variable) => env[variable] === proxy) ?? 'the proxy variable';
  throw usageError(
    'bad_proxy_env',
    `${name} is not a proxy URL, such as http://proxy.example:3128`,
    `set ${name} to the proxy's URL, or unset it`,
  );
}

/** The connection pool of a transport. A proxy or local address that undici refuses is the user's to fix. */
export function openDispatcher(transport: Transport): Dispatcher {
  try {
    return createDispatcher(transport.client);
  } catch (error) {
    throw codedError('usage', 'bad_transport', `cannot set up the connection: ${errorMessage(error)}`, {}, error);
  }
}

/**
 * §5.7: the egress address a receiver registers. One this machine does not have, or of the other family than an
 * address given as the peer, fails every connection alike: refused before anything is sent, not retried as a
 * delivery failure. A peer given by name may resolve to either family; that is found when connecting.
 */
async function checkLocalAddress(address: string, peer: string | undefined): Promise<void> {
  const family = isIP(address);
  const host = hostOf(peer);
  if (host !== undefined && isIP(host) !== 0 && isIP(host) !== family) {
    throw codedError(
      'usage',
      'local_address',
      `cannot send from ${address} (IPv${family}) to ${host} (IPv${isIP(host)}): a connection keeps one address family`,
      { reason: 'family', family: isIP(host) },
    );
  }
  const failure = await bindFailure(address, family === 6 ? 'udp6' : 'udp4');
  if (failure !== undefined) {
    throw codedError(
      'usage',
      'local_address',
      `cannot send from ${address}: this machine has no such address (${errnoCode(failure) ?? errorMessage(failure)})`,
      { reason: 'not-local' },
      failure,
    );
  }
}

/** Whether the system lets a socket take `address` (a datagram socket: nothing listens, nothing is sent). */
function bindFailure(address: string, type: 'udp4' | 'udp6'): Promise<unknown> {
  return new Promise((resolve) => {
    const socket = createSocket(type);
    socket.once('error', (error) => {
      socket.close();
      resolve(error);
    });
    socket.bind({ port: 0, address, exclusive: true }, () => socket.close(() => resolve(undefined)));
  });
}

/** The host of a URL, an IPv6 address without its brackets. */
function hostOf(url: string | undefined): string | undefined {
  const parsed = url === undefined ? undefined : parseUrl(url);
  return parsed && bareHostname(parsed);
}

function redactUrl(url: string): string {
  const parsed = parseUrl(url);
  if (parsed === undefined) return url;
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
