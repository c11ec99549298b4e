import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { codedError, errnoCode, errorMessage } from '../errors.js';
import { ByteBudget } from './byte-budget.js';

export { ByteBudget };
import {
  BODY_UNREADABLE,
  bodyUnreadable,
  ConnectionGuard,
  rawErrorAnswer,
  type Handler,
  type Refusal,
} from './admission.js';

export type { Refusal };
import type { BodyWatch } from './body-watch.js';
import { hostPort } from './address.js';
import { MIN_TLS_VERSION } from './tls.js';
import { errorReply, sendReply } from './reply.js';

export { errorReply, jsonReply, sendReply, type Reply } from './reply.js';

// How long close() lets answered connections finish before cutting them.
const CLOSE_GRACE_MS = 1_000;

export type BodyResult =
  | { ok: true; body: Buffer }
  | { ok: false; reason: 'too_large' | 'aborted' | 'malformed' | 'timeout' | 'busy' };

interface ReadBodyOptions {
  /** Cuts a body that stalls or drags (`timeout`). */
  watch?: BodyWatch;
  /** Shared by every request: over it, reading stops (`busy`). A body read in full keeps its bytes taken. */
  budget?: ByteBudget;
}

/**
 * Reads a request body, counting bytes as they arrive: over `limit` it stops reading at once (§8: 413
 * without reading the rest), whatever Content-Length claimed. With `options`, a stalled or slow body is cut
 * (`timeout`) and the bytes come out of a shared budget (`busy` when it is spent); a body read in full keeps
 * its bytes taken from the budget until the caller gives them back.
 */
export function readBody(request: IncomingMessage, limit: number, options: ReadBodyOptions = {}): Promise<BodyResult> {
  // The body is wanted now: a sender waiting for `100 Continue` gets it here, and only here.
  const waiting = AWAITING_CONTINUE.get(request);
  if (waiting) {
    AWAITING_CONTINUE.delete(request);
    if (!waiting.headersSent && !waiting.destroyed) waiting.writeContinue();
  }
  const unreadable = bodyUnreadable(request);
  if (unreadable !== undefined) return Promise.resolve({ ok: false, reason: unreadable });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const { watch, budget } = options;
    const watched = watch?.watch(() => finish({ ok: false, reason: 'timeout' }));
    const finish = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      if (watched) watch?.unwatch(watched);
      // Read in full, the request emits nothing more to listen for: its listeners go with it.
      if (!result.ok) {
        request.off('data', onData);
        request.off('end', onEnd);
        request.off('error', onError);
        request.off('aborted', onError);
        request.off(BODY_UNREADABLE, onMalformed);
        request.pause();
        budget?.give(size);
      }
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > limit) return finish({ ok: false, reason: 'too_large' });
      if (budget && !budget.take(chunk.length)) return finish({ ok: false, reason: 'busy' });
      size += chunk.length;
      chunks.push(chunk);
      if (watched) watched.last = performance.now();
    };
    const onEnd = () =>
      finish({ ok: true, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size) });
    const onError = () => finish({ ok: false, reason: 'aborted' });
    const onMalformed = (why: 'aborted' | 'malformed' = 'malformed') => finish({ ok: false, reason: why });
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('aborted', onError);
    request.on(BODY_UNREADABLE, onMalformed);
  });
}

/**
 * Requests sent with `Expect: 100-continue` (RFC 9110 §10.1.1), and their responses. Node answers `100 Continue` at
 * once unless the server takes the 'checkContinue' event; the receivers take it, and send the interim answer only
 * when they read the body (readBody), so a request refused from its headers (a 413 by Content-Length, a 401) never
 * has its sender upload the body it will not read.
 */
const AWAITING_CONTINUE = new WeakMap<IncomingMessage, ServerResponse>();

/** The declared Content-Length, or undefined when absent or not a plain number. */
export function declaredLength(request: IncomingMessage): number | undefined {
  const value = request.headers['content-length'];
  if (value === undefined || !/^[0-9]+$/.test(value)) return undefined;
  return Number(value);
}

/** A header as one string (the first value when repeated); undefined when absent. */
export function headerValue(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export interface TlsFiles {
  cert: string | Buffer;
  key: string | Buffer;
}

export interface ListeningServer {
  server: Server;
  url: string;
  port: number;
  /** Stops accepting, waits for requests in flight (`drain`), then closes every connection. */
  close(drain: () => Promise<void>): Promise<void>;
}

/**
 * The bounds of a reference receiver, so that no flood of connections, slow senders or large bodies can take
 * more than a stated share of it. Each is a default of `DEFAULT_RECEIVER_LIMITS`.
 */
export interface ReceiverLimits {
  /**
   * Connections open at once; at the limit, the idle and the unauthenticated make room for a new one, which is
   * closed on arrival only when every connection has an authenticated request in flight (admission.ts).
   */
  maxConnections: number;
  /**
   * Requests parsed and not yet answered on one connection (pipelined, or answers not read); one more: those are
   * answered, then it is closed. Default 16.
   */
  maxRequestsInFlight?: number;
  /** Request-body bytes held in memory by all requests together; a body that would go over it gets 503. */
  maxBufferedBytes: number;
  /** The request line and headers must be in within this (server.headersTimeout); else the connection is cut. */
  headersTimeoutMs: number;
  /** A body that sends no byte for this long is cut with 408. */
  bodyIdleTimeoutMs: number;
  /** A body not in full this long after its headers is cut with 408 (at 262 144 bytes: 8.7 KB/s at least). */
  bodyTimeoutMs: number;
  /** The whole request within this (server.requestTimeout): Node's own 408, behind the two body time-outs. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this (server.keepAliveTimeout). Default 5 s, Node's own. */
  keepAliveTimeoutMs?: number;
}

// A sender waits for each answer (no client of the toolkit pipelines); 16 leaves room for one that does.
const DEFAULT_MAX_IN_FLIGHT = 16;

export const DEFAULT_RECEIVER_LIMITS: Readonly<Required<ReceiverLimits>> = {
  maxConnections: 1_024,
  maxRequestsInFlight: DEFAULT_MAX_IN_FLIGHT,
  // 256 bodies of the §8 maximum at once.
  maxBufferedBytes: 64 * 1024 * 1024,
  headersTimeoutMs: 10_000,
  bodyIdleTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
};
// How often Node looks for connections over headersTimeout / requestTimeout (its default is 30 s).
const MAX_CHECK_INTERVAL_MS = 1_000;

/** What a server's start-up applies of a receiver's limits: admission and Node's own time-outs. */
type ServerLimits = Pick<
  ReceiverLimits,
  'maxConnections' | 'maxRequestsInFlight' | 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs'
>;

interface ListenOptions {
  host: string;
  port: number;
  path: string;
  tls?: TlsFiles;
  limits?: ServerLimits;
  /** The methods the server takes, for the Allow header of a 405 it answers itself (CONNECT); default POST. */
  allow?: string;
  /**
   * Each request the server answers itself, after the answer, before (or instead of) the handler: what the parser
   * could not read, no Host, a bad Expect, a CONNECT. Must not throw: what it throws is dropped.
   */
  onRefused?: (refusal: Refusal) => void;
}

/** `handler`, after an HTTP/1.1 request without a Host header is answered 400 (RFC 9112 §3.2) and its connection closed. */
function withHost(handler: Handler, refuse: Refuse): Handler {
  return (request, response) => {
    if (request.headers.host !== undefined || request.httpVersionMinor !== 1 || request.httpVersionMajor !== 1)
      return handler(request, response);
    refuse(request, response, 400, 'bad_request', 'an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)');
  };
}

type Refuse = (
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  reason: string,
  message: string,
) => void;

/** Answers a parsed request the server refuses itself with a JSON error, closes its connection, then tells `onRefused`. */
function refuser(onRefused: ((refusal: Refusal) => void) | undefined): Refuse {
  return (request, response, status, reason, message) => {
    sendReply(request, response, { ...errorReply(status, reason, message), close: true });
    tell(onRefused, { status, reason, message, ...parsedRequest(request) });
  };
}

/** What a refusal says of a request Node parsed: as a handler would see it. */
function parsedRequest(request: IncomingMessage) {
  return {
    method: request.method ?? '',
    target: request.url ?? '',
    httpVersion: request.httpVersion,
    rawHeaders: request.rawHeaders,
    remoteAddress: request.socket.remoteAddress,
  };
}

/** Hands a refusal to its listener: whatever the listener does wrong, the request was answered. */
function tell(onRefused: ((refusal: Refusal) => void) | undefined, refusal: Refusal): void {
  try {
    onRefused?.(refusal);
  } catch {
    // A listener is a bystander (the mock's line, the inspector): its failure is not the server's.
  }
}

/**
 * The one server start-up (the mocks, a conformance run's listener, the inspector): an HTTP (or HTTPS, §5.8) server
 * on host:port (0 = any free port), within `limits`.
 */
export async function listen(handler: Handler, options: ListenOptions): Promise<ListeningServer> {
  // Node reads an empty host as every interface: an address left empty (an unset variable) would open the server to
  // the network instead of refusing.
  if (options.host === '')
    throw codedError('usage', 'bad_host', 'the address to listen on is empty', { host: '', port: options.port });
  const limits = options.limits ?? DEFAULT_RECEIVER_LIMITS;
  const serverOptions = {
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is refused, here with a JSON body like every other answer.
    requireHostHeader: false,
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: Math.max(limits.requestTimeoutMs, limits.headersTimeoutMs),
    connectionsCheckingInterval: Math.max(10, Math.min(MAX_CHECK_INTERVAL_MS, limits.headersTimeoutMs / 2)),
  };
  let server: Server;
  // Every request passes the admission first: a connection over its requests in flight is closed, not served.
  const guard = new ConnectionGuard({
    maxConnections: limits.maxConnections,
    maxRequestsInFlight: limits.maxRequestsInFlight ?? DEFAULT_MAX_IN_FLIGHT,
  });
  const refuse = refuser(options.onRefused);
  const admitted = guard.wrap(withHost(handler, refuse));
  try {
    server = options.tls
      ? createHttpsServer(
          // A handshake never finished is held no longer than headers that never come.
          {
            ...serverOptions,
            handshakeTimeout: limits.headersTimeoutMs,
            cert: options.tls.cert,
            key: options.tls.key,
            minVersion: MIN_TLS_VERSION,
          },
          admitted,
        )
      : createHttpServer(serverOptions, admitted);
  } catch (error) {
    const reason = errorMessage(error);
    throw codedError('usage', 'bad_tls_files', `the TLS certificate or key cannot be used: ${reason}`, {}, error);
  }
  guard.attach(server, (refusal) => tell(options.onRefused, refusal));
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    AWAITING_CONTINUE.set(request, response);
    admitted(request, response);
  });
  // RFC 9110 §10.1.1: an expectation other than 100-continue may be refused with 417; Node's own has no body.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
    refuse(request, response, 417, 'expectation_failed', 'only Expect: 100-continue is understood (RFC 9110 §10.1.1)'),
  );
  // RFC 9110 §9.3.6: CONNECT asks for a tunnel, and no server of cai is a proxy. Node hands it to this event alone
  // and, without a listener, closes the connection without a word: a 405 like any other method's.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => {});
    const allow = options.allow ?? 'POST';
    const message = 'CONNECT is not allowed: this server is not a proxy';
    socket.end(rawErrorAnswer(405, 'method_not_allowed', message, `Allow: ${allow}\r\n`));
    tell(options.onRefused, {
      status: 405,
      reason: 'method_not_allowed',
      message,
      headers: { allow },
      ...parsedRequest(request),
    });
  });
  server.keepAliveTimeout = limits.keepAliveTimeoutMs ?? DEFAULT_RECEIVER_LIMITS.keepAliveTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    const onError = (error: unknown) => reject(listenError(error, options.host, options.port));
    server.once('error', onError);
    server.listen(options.port, options.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `${options.tls ? 'https' : 'http'}://${hostPort(address.address, address.port)}${options.path}`;
  return { server, url, port: address.port, close: closer(server) };
}

/** Stops accepting, waits for requests in flight (`drain`), gives answers a moment to go out, then cuts the rest. */
function closer(server: Server): ListeningServer['close'] {
  let closing: Promise<void> | undefined;
  return (drain) => {
    closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await drain();
      server.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
      clearTimeout(timer);
      server.closeAllConnections();
      await closed;
    })();
    return closing;
  };
}

/** Why a server could not listen, as a code with its host and port (the command words the hint). */
function listenError(error: unknown, host: string, port: number) {
  const code = errnoCode(error);
  const data = { host, port };
  if (code === 'EADDRINUSE') {
    return codedError('usage', 'port_in_use', `port ${port} on ${host} is already in use`, data, error);
  }
  if (code === 'EACCES') {
    return codedError('usage', 'port_denied', `not allowed to listen on port ${port} on ${host}`, data, error);
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
    return codedError('usage', 'bad_host', `cannot listen on ${host}: no such local address`, data, error);
  }
  const reason = errorMessage(error);
  const message = `cannot listen on ${host}:${port}: ${reason}`;
  return codedError('delivery', 'listen_failed', message, { ...data, reason }, error);
}

export const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
