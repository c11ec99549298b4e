/**
 * What went wrong with a request, from what undici or Node threw: a CaiError with a stable code (timeout, unreachable,
 * tls, proxy, connection, …) and the data its hint is worded from (src/commands/common/hints.ts), never a flag name.
 * Used by the HTTP client (client.ts).
 */
import { NETWORK_CAPS } from '../bounds.js';
import { formatDuration } from '../duration.js';
import { CaiError, codedError, deliveryError, errnoCode, errorMessage } from '../errors.js';
import { hostPort, originOf, parseUrl } from './address.js';

export function timeoutError(
  url: string,
  timeoutMs: number,
  cause: unknown,
  phase: 'connect' | 'headers' | 'body' | 'whole',
): CaiError {
  const what =
    phase === 'connect'
      ? `could not connect to ${originOf(url)} within ${formatDuration(timeoutMs)}`
      : phase === 'body'
        ? `the response body from ${originOf(url)} stalled for more than ${formatDuration(timeoutMs)}`
        : phase === 'whole'
          ? `no complete response from ${originOf(url)} within ${formatDuration(timeoutMs)}`
          : `no response from ${originOf(url)} within ${formatDuration(timeoutMs)}`;
  return codedError('delivery', 'timeout', what, {}, cause);
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'EHOSTDOWN',
]);
const LOCAL_ADDRESS = new Set(['EADDRNOTAVAIL', 'EINVAL', 'EAFNOSUPPORT']);
const CONNECTION = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);
const TIMEOUT = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** A request cai itself cut short: its outcome is unknown, and another attempt is not for this run to make. */
export function interruptedRequest(cause: unknown): CaiError {
  return deliveryError('aborted', 'the request was interrupted', 'run the command again to send it', cause);
}

/** Maps an undici / Node network error to a CaiError with a stable code and a useful hint. */
export function describeNetworkError(url: string, timeoutMs: number, error: unknown): CaiError {
  if (error instanceof CaiError) return error;
  const root = rootCause(error);
  const code = errnoCode(root) ?? errnoCode(error) ?? '';
  // cai destroys a pool only to abort the requests in flight on it (a batch's second Ctrl-C): an interruption, not
  // a connection failure to retry.
  if (code === 'UND_ERR_DESTROYED') return interruptedRequest(error);
  const message = errorMessage(root);
  const origin = originOf(url);
  if (TIMEOUT.has(code)) {
    const phase = code === 'UND_ERR_BODY_TIMEOUT' ? 'body' : code === 'UND_ERR_HEADERS_TIMEOUT' ? 'headers' : 'connect';
    return timeoutError(url, timeoutMs, error, phase);
  }
  // The local address cannot take this connection (none such, or the other family than the peer's resolved address):
  // every attempt would fail alike, so the code is not one that is retried.
  if (LOCAL_ADDRESS.has(code) && /\bbind\b/.test(message)) {
    return codedError('delivery', 'local_address', `cannot send from the local address: ${message}`, {}, error);
  }
  const placeholder = code === 'ENOTFOUND' ? placeholderHost(url) : undefined;
  if (placeholder !== undefined) {
    // Never resolves, whenever asked (RFC 2606, RFC 6761 §6.4): not retried like a name that may come back.
    return codedError(
      'delivery',
      'placeholder_host',
      `cannot reach ${origin}: ${placeholder} is a placeholder (names under .example and .invalid never resolve, RFC 2606)`,
      {},
      error,
    );
  }
  if (UNREACHABLE.has(code)) {
    // Name the peer when it is not the target (a proxy in between).
    const peer = peerOf(root);
    const to = peer && !origin.endsWith(`//${peer}`) ? ` to ${peer}` : '';
    const why =
      code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the host name does not resolve'
        : code === 'ECONNREFUSED'
          ? `the connection${to} was refused`
          : message;
    return codedError(
      'delivery',
      'unreachable',
      `cannot reach ${origin}: ${why} (${code})`,
      { viaProxy: to !== '' },
      error,
    );
  }
  if (code === 'ERR_SSL_WRONG_VERSION_NUMBER' || /wrong version number/i.test(message)) {
    // What a plain-HTTP server's first bytes read as: no TLS record at all (OpenSSL's words name its source file).
    return deliveryError(
      'tls',
      `TLS with ${origin} failed: the server answered in plain HTTP, not TLS (${code || 'wrong version number'})`,
      'use an http:// URL for a server without TLS (a local mock, a test port), or the port where TLS is served',
      error,
    );
  }
  if (isTlsError(code, message)) {
    // OpenSSL's messages run over lines (its source file and line): one line, as every error of cai.
    const oneLine = message.replace(/\s*\n\s*/g, ' ').trim();
    return tlsError(`TLS with ${origin} failed: ${oneLine}${code ? ` (${code})` : ''}`, code, message, error);
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    return deliveryError(
      'headers_too_large',
      `the response headers from ${origin} are over the ${NETWORK_CAPS.responseHeaderBytes / 1024} KiB cap (src/bounds.ts)`,
      'check that the URL is the CAI endpoint',
      error,
    );
  }
  if (/proxy/i.test(message) || code.startsWith('UND_ERR_PRX')) {
    return codedError('delivery', 'proxy', `the proxy failed: ${message}`, {}, error);
  }
  if (CONNECTION.has(code) || code === '') {
    return deliveryError(
      'connection',
      `the connection to ${origin} failed: ${message}${code ? ` (${code})` : ''}`,
      'the receiver closed the connection without answering; check its logs',
      error,
    );
  }
  return codedError('delivery', 'connection', `the request to ${origin} failed: ${message} (${code})`, {}, error);
}

/** The host of `url` when it is under a top-level name reserved never to resolve (RFC 2606 §2: .example, .invalid). */
export function placeholderHost(url: string): string | undefined {
  const host = parseUrl(url)?.hostname.toLowerCase().replace(/\.$/, '');
  return host !== undefined && /(^|\.)(example|invalid)$/.test(host) ? host : undefined;
}

function peerOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { address, port } = error as { address?: unknown; port?: unknown };
  return typeof address === 'string' && typeof port === 'number' ? hostPort(address, port) : undefined;
}

function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5; depth += 1) {
    if (current instanceof Error && current.cause !== undefined && errnoCode(current) === undefined)
      current = current.cause;
    else break;
  }
  return current;
}

function isTlsError(code: string, message: string): boolean {
  return (
    code.startsWith('ERR_SSL') ||
    code.startsWith('ERR_TLS') ||
    code.includes('CERT') ||
    code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ||
    code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' ||
    code === 'SELF_SIGNED_CERT_IN_CHAIN' ||
    code === 'EPROTO' ||
    /ssl|tls|certificate/i.test(message)
  );
}

/** A failed handshake: an old protocol (§5.8), or a certificate for another name or from an authority not trusted. */
function tlsError(what: string, code: string, message: string, cause: unknown): CaiError {
  if (/version|protocol/i.test(message) || code === 'EPROTO')
    return deliveryError('tls', what, 'the receiver must offer TLS 1.2 or above (§5.8)', cause);
  return codedError(
    'delivery',
    'tls',
    what,
    { certificate: code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? 'other-name' : 'untrusted' },
    cause,
  );
}
