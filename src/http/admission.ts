/**
 * Fair admission for the servers cai puts on the network (the mocks, the inspector): a client that floods gets its
 * share and no more, so a signed sender is served while the flood goes on.
 *
 * - Connections: at most `maxConnections` open. At the limit a new connection is not refused; a slot is reclaimed
 *   instead, from the connections that cost the least to lose: first one with no request in flight that never sent
 *   an authenticated request (a socket opened and left silent, or sending its headers slowly), then one whose request
 *   is in flight but not authenticated yet (a body trickling in from a sender that has not proved who it is), then
 *   an idle keep-alive connection of an authenticated sender; the one of each kind idle (or busy) the longest first.
 *   Only when every connection has an authenticated request in flight is the new one closed on arrival.
 * - Requests in flight on one connection: at most `maxRequestsInFlight` parsed and not yet answered (pipelined
 *   requests, or answers the client does not read). One more and the connection is read no further: it is closed,
 *   and what it had pipelined past the bound is not handled. Node stops reading a connection whose answers are not
 *   drained (its `needDrain`); this bounds what one read of the socket can queue before that.
 * Node's own `server.maxConnections` drops a new connection before anyone sees it, so it is left unset here.
 */
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

interface AdmissionLimits {
  /** Connections open at once (see above for who makes room). */
  maxConnections: number;
  /** Requests parsed and not yet answered on one connection; one more: those are answered, then it is closed. */
  maxRequestsInFlight: number;
}

/** One connection's standing: requests in flight, and whether one of its requests was authenticated. */
interface Connection {
  socket: Socket;
  inFlight: number;
  authenticated: boolean;
  /** It went over maxRequestsInFlight: closed, and its requests still arriving from the last read are dropped. */
  overrun: boolean;
  /** Closed to make room: its slot was freed then, not again when its socket closes. */
  reclaimed: boolean;
  /** It sent what could not be read as HTTP: closed once the requests read before are answered. */
  unreadable?: boolean;
  /** The last request admitted: the one whose body a parse error can cut short. */
  reading?: IncomingMessage;
  guard: ConnectionGuard;
}

/**
 * Emitted on a request whose body can never end, with why: what followed its headers on the connection could not be
 * parsed (`malformed`: a chunk size that is no hex number, framing that contradicts itself), or the sender ended or
 * reset the connection before the body was whole (`aborted`). Its reader answers at once (readBody) instead of
 * waiting out the body's time-out for bytes the parser will never hand over.
 */
export const BODY_UNREADABLE = 'cai:body-unreadable';

/** Parser errors that mean the connection ended before the request did, not that its bytes were wrong. */
const ENDED_EARLY = new Set(['HPE_INVALID_EOF_STATE', 'ECONNRESET', 'EPIPE']);

/**
 * The requests whose body can never end, with why (as BODY_UNREADABLE says it): kept, for a handler that looks only
 * after the event (an answer decided on the headers alone, a body read later), to know without waiting.
 */
const UNREADABLE_BODIES = new WeakMap<IncomingMessage, 'aborted' | 'malformed'>();

/** Why this request's body can never end, when BODY_UNREADABLE was emitted on it. */
export function bodyUnreadable(request: IncomingMessage): 'aborted' | 'malformed' | undefined {
  return UNREADABLE_BODIES.get(request);
}

/**
 * A JSON error answer as the bytes written straight to a socket, where Node gives no response object (a request it
 * could not parse, a CONNECT); `head` is extra header lines, each ending in CRLF. The connection closes after it.
 */
export function rawErrorAnswer(status: number, code: string, message: string, head = ''): string {
  const body = JSON.stringify({ ok: false, error: code, message });
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * A request a server answered itself before any handler saw it: what its parser could not read, and (server.ts) an
 * HTTP/1.1 request without Host, an Expect other than 100-continue, a CONNECT. What came from the network is either as
 * Node parsed it (what a handler would see) or printable ASCII with every other byte escaped.
 */
export interface Refusal {
  status: number;
  /** The `error` of the JSON answer: `bad_request`, `headers_too_large`, `timeout`, `expectation_failed`, … */
  reason: string;
  message: string;
  /** Answer headers beyond the JSON body's (a 405's Allow). */
  headers?: Record<string, string>;
  /** The request line, when known; empty strings when the parser never got past it. */
  method: string;
  target: string;
  httpVersion: string;
  /** Header names and values as Node parsed them; none when the parser gave up on the head. */
  rawHeaders: readonly string[];
  remoteAddress?: string;
}

/** The error Node's server emits with 'clientError': a parser's carries the read it gave up in, and where. */
type ParserError = Error & { code?: string; reason?: string; rawPacket?: Buffer; bytesParsed?: number };

/** Bytes shown either side of where the parser stopped, within the line it stopped in. */
const EXCERPT_BEFORE = 48;
const EXCERPT_AFTER = 24;

/**
 * Why and where Node's parser gave up, for the answer and the mock's line: llhttp's own reason (a fixed text) and the
 * bytes of the line it stopped in, around the byte it stopped at, as escaped text (`excerpt`). Empty for a time-out.
 */
function whereTheParserStopped(error: ParserError): string {
  const packet = error.rawPacket;
  if (!Buffer.isBuffer(packet) || packet.length === 0) return '';
  const at = Math.min(Math.max(0, error.bytesParsed ?? 0), packet.length - 1);
  let start = at;
  while (start > 0 && at - start < EXCERPT_BEFORE && packet[start - 1] !== 0x0a) start -= 1;
  let end = at + 1;
  while (end < packet.length && end - at <= EXCERPT_AFTER && packet[end] !== 0x0d && packet[end] !== 0x0a) end += 1;
  const fromLineStart = start === 0 || packet[start - 1] === 0x0a;
  const toLineEnd = end === packet.length || packet[end] === 0x0d || packet[end] === 0x0a;
  const bytes = `${fromLineStart ? '' : '…'}${excerpt(packet.subarray(start, end))}${toLineEnd ? '' : '…'}`;
  const why = typeof error.reason === 'string' ? `${excerpt(Buffer.from(error.reason, 'latin1'))}, ` : '';
  return ` (${why}at \`${bytes}\`)`;
}

/**
 * Bytes from the network as text safe on any terminal or page: printable ASCII as is, but the backslash and the
 * backtick (the excerpt's quotes); CR, LF and tab as `\r`, `\n`, `\t`; every other byte as `\xNN`.
 */
function excerpt(bytes: Buffer): string {
  let text = '';
  for (const byte of bytes) {
    if (byte === 0x5c) text += '\\\\';
    else if (byte === 0x0d) text += '\\r';
    else if (byte === 0x0a) text += '\\n';
    else if (byte === 0x09) text += '\\t';
    else if (byte >= 0x20 && byte < 0x7f && byte !== 0x60) text += String.fromCharCode(byte);
    else text += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return text;
}

/** The longest request line looked for (the method, 4 096 bytes of target, the version). */
const MAX_REQUEST_LINE = 32 + 1 + 4096 + 1 + 8;

/**
 * A request line (RFC 9112 §3) at the start of the read the parser gave up in, when it stopped past it and no blank
 * line came before (the read held this request's head alone: not a later part of it, not a request answered before).
 * Only a method token, a target of visible ASCII and a version are taken; anything else gives empty strings.
 */
function requestLineOf(error: ParserError): Pick<Refusal, 'method' | 'target' | 'httpVersion'> {
  const none = { method: '', target: '', httpVersion: '' };
  const packet = error.rawPacket;
  if (!Buffer.isBuffer(packet)) return none;
  const stopped = error.bytesParsed ?? 0;
  const head = packet.subarray(0, Math.min(stopped, packet.length, MAX_REQUEST_LINE + 2)).toString('latin1');
  const line = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) ([\x21-\x7e]{1,4096}) HTTP\/([0-9]\.[0-9])\r\n/.exec(head);
  if (line === null || packet.subarray(0, stopped).includes('\r\n\r\n')) return none;
  return { method: line[1] as string, target: line[2] as string, httpVersion: line[3] as string };
}

/** The connection of a socket, for `markAuthenticated` (a TLS socket's is that of the TCP socket under it). */
const CONNECTIONS = new WeakMap<Socket, Connection>();

function connectionOf(socket: Socket): Connection | undefined {
  // An https server's requests come on a TLSSocket whose `_parent` is the TCP socket that was admitted.
  return CONNECTIONS.get(socket) ?? CONNECTIONS.get((socket as Socket & { _parent?: Socket })._parent as Socket);
}

/**
 * A request proved who sent it (the HMAC checked, §5.2): its connection is among the last to give up its slot.
 * Anything else (a request whose connection is not tracked) is a no-op.
 */
export function markAuthenticated(request: IncomingMessage): void {
  const connection = connectionOf(request.socket);
  if (connection && !connection.authenticated) connection.guard.authenticate(connection);
}

/**
 * Node's parser goes on through the read it is in (up to 64 KiB: some 2 300 pipelined requests of 28 bytes) after
 * the socket is destroyed, making a request and a response object for each. Told that nothing is to be done with
 * them (its `onIncoming`, the hook Node's server sets on the connection's parser), it only parses the rest: measured
 * 4.5 times less CPU for a read of pipelined requests, and their objects are never made. Where the hook is not there
 * (another Node), the requests are dropped one by one by `admit`, as before.
 */
function dropTheRestOfTheRead(socket: Socket): void {
  const parser = (socket as Socket & { parser?: { onIncoming?: unknown } | null }).parser;
  if (parser && typeof parser.onIncoming === 'function') parser.onIncoming = () => 0;
}

/** The connection a response was admitted on: one 'close' listener serves every response, no closure each. */
const CONNECTION_OF = Symbol('connection');
type AdmittedResponse = ServerResponse & { [CONNECTION_OF]: Connection };
function answered(this: AdmittedResponse): void {
  this[CONNECTION_OF].guard.answered(this[CONNECTION_OF]);
}

/** Tracks every connection of one server; `admit` is called first for every request. */
export class ConnectionGuard {
  private count = 0;
  // Insertion order is age: the first of each map has been in that state the longest.
  private readonly idleUnauthenticated = new Map<Socket, Connection>();
  private readonly busyUnauthenticated = new Map<Socket, Connection>();
  private readonly idleAuthenticated = new Map<Socket, Connection>();

  constructor(private readonly limits: AdmissionLimits) {}

  /**
   * Starts tracking the server's connections (before it listens); `refused` hears of each request the parser could not
   * read that is answered here (see `unreadable`).
   */
  attach(server: Server, refused?: (refusal: Refusal) => void): void {
    server.on('connection', (socket: Socket) => this.connected(socket));
    server.on('clientError', (error: ParserError, socket: Socket) => this.unreadable(error, socket, refused));
  }

  /**
   * What Node's parser could not read on a connection: a malformed request line or header, framing that contradicts
   * itself, bytes after a request, headers too large or too slow. Node's own answer is a bare 400 written even while a
   * request read before on the connection awaits its answer, which then never goes out: a sender heard a 400 for an
   * event recorded as accepted. Here the connection is read no further, the requests already read are answered, and
   * then it is closed; with none in flight it is answered at once, with a JSON error body like every other (§4.2),
   * and `refused` hears of it (unless the connection sent no byte: no request began). One a connection at most: each
   * one answered here closes its connection.
   */
  private unreadable(error: ParserError, socket: Socket, refused?: (refusal: Refusal) => void): void {
    const connection = connectionOf(socket);
    if (connection !== undefined && connection.inFlight > 0) {
      connection.unreadable = true;
      socket.pause();
      const reading = connection.reading;
      if (reading !== undefined && !reading.complete) {
        const why = ENDED_EARLY.has(error.code ?? '') ? 'aborted' : 'malformed';
        UNREADABLE_BODIES.set(reading, why);
        reading.emit(BODY_UNREADABLE, why);
      }
      return;
    }
    // Only what the HTTP parser or its time-out refused is answered in HTTP: a failed TLS handshake, a reset, is cut.
    const http = error.code?.startsWith('HPE_') === true || error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (!http || !socket.writable) return void socket.destroy();
    const [status, reason, refusedFor] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large', 'the request line and headers are over the limit']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'timeout', 'the request line and headers did not arrive in time']
          : [400, 'bad_request', 'the request could not be read as HTTP/1.1'];
    const message = refusedFor + whereTheParserStopped(error);
    socket.end(rawErrorAnswer(status, reason, message));
    socket.destroySoon();
    // A connection that sent nothing before its time-out (a socket opened in advance, a port probe) sent no request.
    if (socket.bytesRead === 0) return;
    refused?.({
      status,
      reason,
      message,
      ...requestLineOf(error),
      rawHeaders: [],
      remoteAddress: socket.remoteAddress,
    });
  }

  /** `handler`, called only for the requests `admit` lets through. */
  wrap(handler: Handler): Handler {
    return (request, response) => {
      if (this.admit(request, response)) handler(request, response);
    };
  }

  /** Whether to handle this request: false when its connection went over its requests in flight (closed). */
  admit(request: IncomingMessage, response: ServerResponse): boolean {
    const connection = connectionOf(request.socket);
    if (!connection) return true;
    if (connection.overrun) return false;
    if (connection.inFlight >= this.limits.maxRequestsInFlight) {
      // Read no further, answer the requests in flight (they may be recorded: an answer owed), then close: this
      // one and what was pipelined past it are not handled, and the sender sees the connection end before them.
      connection.overrun = true;
      dropTheRestOfTheRead(request.socket);
      connection.unreadable = true;
      connection.socket.pause();
      return false;
    }
    connection.inFlight += 1;
    connection.reading = request;
    if (connection.inFlight === 1) {
      this.idleUnauthenticated.delete(connection.socket);
      this.idleAuthenticated.delete(connection.socket);
      if (!connection.authenticated) this.busyUnauthenticated.set(connection.socket, connection);
    }
    (response as AdmittedResponse)[CONNECTION_OF] = connection;
    response.on('close', answered);
    return true;
  }

  authenticate(connection: Connection): void {
    connection.authenticated = true;
    this.busyUnauthenticated.delete(connection.socket);
    if (this.idleUnauthenticated.delete(connection.socket)) this.idleAuthenticated.set(connection.socket, connection);
  }

  private connected(socket: Socket): void {
    if (this.count >= this.limits.maxConnections && !this.reclaim()) {
      return void socket.destroy();
    }
    const connection: Connection = {
      socket,
      inFlight: 0,
      authenticated: false,
      overrun: false,
      reclaimed: false,
      guard: this,
    };
    this.count += 1;
    CONNECTIONS.set(socket, connection);
    this.idleUnauthenticated.set(socket, connection);
    socket.once('close', () => this.closed(connection));
  }

  /** @internal A response of the connection was closed (Node emits it once): one request in flight fewer. */
  answered(connection: Connection): void {
    connection.inFlight -= 1;
    if (connection.inFlight > 0 || connection.socket.destroyed) return;
    // The last answer owed on a connection that sent what could not be read: it goes out, then the connection.
    if (connection.unreadable) return void connection.socket.destroySoon();
    this.busyUnauthenticated.delete(connection.socket);
    (connection.authenticated ? this.idleAuthenticated : this.idleUnauthenticated).set(connection.socket, connection);
  }

  private closed(connection: Connection): void {
    if (connection.reclaimed) return;
    this.count -= 1;
    this.idleUnauthenticated.delete(connection.socket);
    this.busyUnauthenticated.delete(connection.socket);
    this.idleAuthenticated.delete(connection.socket);
  }

  /** Closes the connection that costs the least to lose (see the top of this file); false when there is none. */
  private reclaim(): boolean {
    for (const kind of [this.idleUnauthenticated, this.busyUnauthenticated, this.idleAuthenticated]) {
      const oldest = kind.values().next().value;
      if (oldest === undefined) continue;
      // Its slot is free now: the socket's 'close' comes later.
      this.closed(oldest);
      oldest.reclaimed = true;
      oldest.socket.destroy();
      return true;
    }
    return false;
  }
}
