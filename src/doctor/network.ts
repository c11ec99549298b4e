import { lookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, isIP } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type PeerCertificate, type TLSSocket } from 'node:tls';
import { errnoCode, errorMessage } from '../errors.js';
import { MIN_TLS_VERSION, trustedAuthorities } from '../http/tls.js';

/**
 * The network probes of `cai doctor`, on node builtins only: each resolves to facts or rejects with the
 * socket error; turning facts into verdicts is checks.ts's job.
 */

export interface ProbeOptions {
  timeoutMs: number;
  /** Extra trusted CA certificates (PEM), e.g. a test environment's own CA. */
  ca?: Buffer;
}

export async function resolveHost(hostname: string, timeoutMs: number): Promise<string[]> {
  if (isIP(hostname)) return [hostname];
  const results = await withTimeout(lookup(hostname, { all: true }), timeoutMs, `DNS lookup of ${hostname}`);
  return results.map((result) => result.address);
}

export function connectTcp(address: string, port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: address, port });
    // Connected within the deadline, or given up. The probe holds nothing open after it.
    const clear = deadline(socket, `connecting to ${address}:${port}`, timeoutMs);
    socket.once('connect', () => {
      clear();
      socket.destroy();
      resolve();
    });
    socket.once('error', (error) => {
      clear();
      reject(error);
    });
  });
}

export interface TlsFacts {
  protocol: string | null;
  cipher: string;
  authorized: boolean;
  authorizationError?: string;
  certificate?: PeerCertificate;
}

/** A handshake limited to [minVersion, maxVersion]; the certificate is inspected, not enforced (that is a check). */
export function handshake(
  address: string,
  hostname: string,
  port: number,
  versions: { min: 'TLSv1' | 'TLSv1.2'; max: 'TLSv1.1' | 'TLSv1.3' },
  options: ProbeOptions,
): Promise<TlsFacts> {
  return new Promise((resolve, reject) => {
    const legacy = versions.max === 'TLSv1.1';
    const socket: TLSSocket = tlsConnect({
      host: address,
      port,
      // SNI takes a name, never an IP literal.
      servername: isIP(hostname) ? undefined : hostname,
      minVersion: versions.min,
      maxVersion: versions.max,
      // OpenSSL 3 refuses to offer TLS 1.0/1.1 at its default security level: lower it for the probe only.
      ciphers: legacy ? 'DEFAULT:@SECLEVEL=0' : undefined,
      ca: options.ca ? trustedAuthorities(options.ca) : undefined,
      rejectUnauthorized: false,
      // The certificate's name is checked against the URL's host, not the resolved address we connect to.
      checkServerIdentity: (_host, certificate) => checkServerIdentity(hostname, certificate),
    });
    // The whole handshake within the time-out, however slowly its bytes come.
    const clear = deadline(socket, `the TLS handshake with ${address}:${port}`, options.timeoutMs);
    socket.once('close', clear);
    socket.once('secureConnect', () => {
      clear();
      const facts: TlsFacts = {
        protocol: socket.getProtocol(),
        cipher: socket.getCipher().name,
        authorized: socket.authorized,
        authorizationError: socket.authorizationError ? String(socket.authorizationError) : undefined,
        certificate: socket.getPeerCertificate(),
      };
      socket.destroy();
      resolve(facts);
    });
    socket.once('error', reject);
  });
}

interface HttpFacts {
  status: number;
  date?: string;
  /** Local clock (ms) when the request was sent and when the response headers arrived. */
  sentAt: number;
  receivedAt: number;
}

/** A GET, harmless to a POST-only endpoint, to read the server's `Date` header (the answer's status does not matter). */
export function fetchDate(url: URL, address: string, options: ProbeOptions, now: () => number): Promise<HttpFacts> {
  return new Promise((resolve, reject) => {
    const https = url.protocol === 'https:';
    const sentAt = now();
    const request = (https ? httpsRequest : httpRequest)(
      {
        host: address,
        port: url.port || (https ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { host: url.host, 'user-agent': 'cai-doctor' },
        servername: https && !isIP(url.hostname) ? url.hostname : undefined,
        ca: options.ca ? trustedAuthorities(options.ca) : undefined,
        rejectUnauthorized: false,
        minVersion: MIN_TLS_VERSION,
        agent: false,
      },
      (response: IncomingMessage) => {
        const receivedAt = now();
        clear();
        const date = response.headers.date;
        // Only the headers are read: the connection goes at once, so that no body (however slow) keeps cai running.
        request.destroy();
        resolve({ status: response.statusCode ?? 0, date, sentAt, receivedAt });
      },
    );
    // The headers within the time-out, however slowly they come.
    const clear = deadline(request, `the GET of ${url.href}`, options.timeoutMs);
    request.once('error', (error) => {
      clear();
      reject(error);
    });
    request.end();
  });
}

export function describeSocketError(error: unknown): { code: string; message: string } {
  const code = errnoCode(error) ?? 'error';
  return { code, message: errorMessage(error).split('\n')[0] ?? code };
}

/** A total deadline, not an idle time-out: `target` is destroyed with ETIMEDOUT when it passes. Returns its clearing. */
function deadline(target: { destroy(error: Error): unknown }, what: string, timeoutMs: number): () => void {
  const error = () => Object.assign(new Error(`${what} timed out after ${timeoutMs} ms`), { code: 'ETIMEDOUT' });
  const timer = setTimeout(() => target.destroy(error()), timeoutMs);
  return () => clearTimeout(timer);
}

/** `promise`, or ETIMEDOUT when the deadline passes first (a DNS lookup has nothing to destroy). */
function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const clear = deadline({ destroy: reject }, what, timeoutMs);
    promise.then(resolve, reject).finally(clear);
  });
}
