/**
 * One keep-alive connection of the `cai load` client (./wire.ts): it writes a request and reads its answer with
 * a parser of its own (status line, headers, a body by Content-Length, chunked, or until the connection closes;
 * RFC 9112 §6), within the bounds that module states.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import { NETWORK_CAPS } from '../bounds.js';
import { bareHostname } from '../http/loopback.js';
import { MIN_TLS_VERSION, trustedAuthorities } from '../http/tls.js';
import { LOAD_BOUNDS } from './bounds.js';

const CRLF = Buffer.from('\r\n');
/** The headers a load run reads of an answer: its framing, and what the judging needs (§7 Retry-After, a redirect's Location). */
const ANSWER_HEADERS = [
  'content-length',
  'transfer-encoding',
  'connection',
  'content-type',
  'retry-after',
  'location',
] as const;

/** A header's value (repeated ones joined with ", "), found by its lower-case name in `lower`, read from `head`. */
function headerIn(head: string, lower: string, name: string): string | undefined {
  let value: string | undefined;
  const key = `\r\n${name}:`;
  for (let at = lower.indexOf(key); at !== -1; at = lower.indexOf(key, at + key.length)) {
    const end = lower.indexOf('\r\n', at + key.length);
    const text = head.slice(at + key.length, end === -1 ? head.length : end).trim();
    value = value === undefined ? text : `${value}, ${text}`;
  }
  return value;
}
const HEAD_END = Buffer.from('\r\n\r\n');

export interface WireAnswer {
  status: number;
  /** Header names in lower case; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** At most LOAD_BOUNDS.answerBodyBytes of the body. */
  body: Buffer;
}

export interface WireCallbacks {
  answered(answer: WireAnswer): void;
  /** No answer: the errno (ECONNREFUSED…), `timeout`, or `bad_response` for what is not HTTP/1.x. */
  failed(code: string): void;
}

export interface WireOptions {
  url: URL;
  /** Extra authority to trust (PEM), beside Node's bundled ones. */
  ca?: Buffer;
  insecure?: boolean;
  /** A request whose answer is not whole this long after it was written fails (connecting, headers and body). */
  timeoutMs: number;
}

/** What a connection needs of its pool (WirePool, wire.ts): named here so that a connection imports nothing of the pool. */
export interface ConnectionPool {
  /** The pool timer's ticks so far. */
  readonly tick: number;
  /** The buffer every plain connection reads into. */
  readonly readBuffer: Buffer;
  /** An answer is complete and the connection may carry the next request. */
  release(connection: Connection): void;
  /** The connection is gone. */
  forget(connection: Connection): void;
}

type Phase = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer' | 'until-close';

export class Connection {
  private readonly socket: Socket;
  private callbacks: WireCallbacks | undefined;
  private pending: Buffer | undefined;
  private phase: Phase = 'head';
  private remaining = 0;
  private status = 0;
  private headers: Record<string, string> = {};
  private keepAlive = true;
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private readBytes = 0;
  /** The pool's tick when the request in flight was written: its whole answer is due within the time-out. */
  private sentAt = 0;
  private gone = false;
  /** The data being parsed is a view of the pool's read buffer. */
  private shared = false;

  constructor(
    private readonly pool: ConnectionPool,
    options: WireOptions,
  ) {
    const { url } = options;
    const host = bareHostname(url);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    this.socket =
      url.protocol === 'https:'
        ? tlsConnect({
            host,
            port,
            ...(isIP(host) === 0 ? { servername: host } : {}),
            // §5.8: TLS 1.2 or above.
            minVersion: MIN_TLS_VERSION,
            rejectUnauthorized: options.insecure !== true,
            ALPNProtocols: ['http/1.1'],
            ...(options.ca ? { ca: trustedAuthorities(options.ca) } : {}),
          })
        : // Plain TCP reads straight into the pool's buffer (`onread`): no stream, no buffer a read. What is kept past
          // a read (an unfinished head, the kept body) is copied out of it.
          netConnect({
            host,
            port,
            onread: {
              buffer: pool.readBuffer,
              callback: (size: number, buffer: Uint8Array) =>
                this.read(Buffer.from(buffer.buffer, buffer.byteOffset, size), true),
            },
          });
    this.socket.setNoDelay(true);
    if (url.protocol === 'https:') this.socket.on('data', (chunk: Buffer) => this.read(chunk, false));
    this.socket.on('error', (error: NodeJS.ErrnoException) => this.end(error.code ?? 'connection'));
    this.socket.on('close', () => this.end('ECONNRESET'));
  }

  /** Calls `ready` once, when the connection is up (after the TLS handshake) or gone. */
  whenReady(ready: () => void): void {
    let called = false;
    const once = () => {
      if (called) return;
      called = true;
      this.socket.off('close', once);
      ready();
    };
    this.socket.once(this.socket instanceof TLSSocket ? 'secureConnect' : 'connect', once);
    this.socket.once('close', once);
  }

  send(request: Buffer, callbacks: WireCallbacks): void {
    this.callbacks = callbacks;
    this.phase = 'head';
    this.status = 0;
    this.headers = {};
    this.keptBytes = 0;
    this.kept.length = 0;
    this.readBytes = 0;
    this.sentAt = this.pool.tick;
    this.socket.write(request);
  }

  /**
   * A request whose answer is not whole `ticks` ticks after it was written fails with `timeout`: a total deadline
   * (connecting, headers and body), not an idle one, so an answer that trickles in a byte at a time ends too.
   */
  expireIfOverdue(tick: number, ticks: number): void {
    if (this.callbacks !== undefined && tick - this.sentAt >= ticks) this.destroy('timeout');
  }

  /** Closes the connection; a request in flight fails with `code`. */
  destroy(code = 'closed'): void {
    this.end(code);
    this.socket.destroy();
  }

  /** The connection is gone: a request on it fails, unless its body was to run until the close. */
  private end(code: string): void {
    if (this.gone) return;
    this.gone = true;
    this.pool.forget(this);
    const callbacks = this.callbacks;
    if (callbacks === undefined) return;
    this.callbacks = undefined;
    if (this.phase === 'until-close' && code === 'ECONNRESET') callbacks.answered(this.answer());
    else callbacks.failed(code);
  }

  /** `shared`: `chunk` is a view of the pool's read buffer, written again by the next read. */
  private read(chunk: Buffer, shared: boolean): true {
    let data = this.pending === undefined ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = undefined;
    this.shared = shared && data === chunk;
    while (data.length > 0) {
      // Bytes no request asked for (after an answer, or on an idle connection): the receiver does not speak
      // HTTP/1.1 as it should. The connection is not reused.
      if (this.callbacks === undefined) {
        this.destroy('bad_response');
        return true;
      }
      const rest = this.step(data);
      if (rest === undefined) return true;
      data = rest;
    }
    return true;
  }

  /** Parses what it can of `data`; the bytes after it, or undefined when more are needed (kept in `pending`). */
  private step(data: Buffer): Buffer | undefined {
    switch (this.phase) {
      case 'head': {
        const end = data.indexOf(HEAD_END);
        if (end === -1) return this.wait(data, NETWORK_CAPS.responseHeaderBytes, 'headers_too_large');
        if (end > NETWORK_CAPS.responseHeaderBytes) return this.fail('headers_too_large');
        const rest = data.subarray(end + 4);
        const read = this.parseHead(data.toString('latin1', 0, end));
        if (read === undefined) return undefined;
        if (read === 'complete') this.complete(rest.length > 0);
        return rest;
      }
      case 'length':
      case 'chunk-data': {
        const chunked = this.phase === 'chunk-data';
        const take = Math.min(this.remaining, data.length);
        this.keep(data.subarray(0, take));
        this.remaining -= take;
        if (this.remaining === 0 && !chunked) this.complete(data.length > take);
        else if (this.remaining === 0) {
          this.phase = 'chunk-end';
          this.remaining = 2;
        }
        return data.subarray(take);
      }
      case 'chunk-size': {
        const end = data.indexOf(CRLF);
        if (end === -1) return this.wait(data, 1024, 'bad_response');
        const size = Number.parseInt(data.toString('latin1', 0, end).split(';')[0] as string, 16);
        if (!Number.isFinite(size) || size < 0) return this.fail('bad_response');
        this.phase = size === 0 ? 'trailer' : 'chunk-data';
        this.remaining = size;
        return data.subarray(end + 2);
      }
      case 'chunk-end': {
        // The CRLF after a chunk's data (it may come split over two reads).
        const take = Math.min(this.remaining, data.length);
        for (let index = 0; index < take; index += 1)
          if (data[index] !== (this.remaining - index === 2 ? 0x0d : 0x0a)) return this.fail('bad_response');
        this.remaining -= take;
        if (this.remaining === 0) this.phase = 'chunk-size';
        return data.subarray(take);
      }
      case 'trailer': {
        const end = data.indexOf(CRLF);
        if (end === -1) return this.wait(data, NETWORK_CAPS.responseHeaderBytes, 'bad_response');
        // An empty line ends the trailers, and the answer.
        if (end === 0) this.complete(data.length > 2);
        return data.subarray(end + 2);
      }
      case 'until-close':
        this.keep(data);
        return data.subarray(data.length);
    }
  }

  private wait(data: Buffer, cap: number, code: string): undefined {
    if (data.length > cap) return this.fail(code);
    this.pending = this.shared ? Buffer.from(data) : data;
  }

  /** What came is not an answer this client reads: the connection closes, its request fails with `code`. */
  private fail(code: string): undefined {
    this.destroy(code);
  }

  /**
   * The status line and the headers a load run reads: the body to read next, an answer already whole, or undefined
   * (the connection closed). Names are found in a lower-cased copy of the head (latin1: the same length), values taken
   * from the head as sent.
   */
  private parseHead(head: string): 'body' | 'complete' | undefined {
    // `HTTP/1.x NNN`: the version's minor digit at 7, the status at 9–11.
    if (head.length < 12 || !head.startsWith('HTTP/1.') || head.charCodeAt(8) !== 0x20)
      return this.fail('bad_response');
    const status = Number(head.slice(9, 12));
    if (!(status >= 100 && status <= 999)) return this.fail('bad_response');
    if (status < 200) return 'body'; // an interim answer (100 Continue): the final one follows
    const lower = head.toLowerCase();
    const headers: Record<string, string> = {};
    for (const name of ANSWER_HEADERS) {
      const value = headerIn(head, lower, name);
      if (value !== undefined) headers[name] = value;
    }
    this.status = status;
    this.headers = headers;
    const connection = (headers.connection ?? '').toLowerCase();
    this.keepAlive = head.charCodeAt(7) === 0x31 ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    const length = headers['content-length'];
    if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
      this.phase = 'chunk-size';
      return 'body';
    }
    if (length !== undefined) {
      if (!/^[0-9]{1,15}$/.test(length)) return this.fail('bad_response');
      this.remaining = Number(length);
      this.phase = 'length';
      return this.remaining === 0 ? 'complete' : 'body';
    }
    if (status === 204 || status === 304) return 'complete';
    // No length: the body runs until the connection closes (RFC 9112 §6.3), which is then not reused.
    this.phase = 'until-close';
    this.keepAlive = false;
    return 'body';
  }

  private keep(part: Buffer): void {
    this.readBytes += part.length;
    if (this.keptBytes < LOAD_BOUNDS.answerBodyBytes && part.length > 0) {
      const slice =
        part.length + this.keptBytes > LOAD_BOUNDS.answerBodyBytes
          ? part.subarray(0, LOAD_BOUNDS.answerBodyBytes - this.keptBytes)
          : part;
      // A copy when the read is the pool's shared buffer; else a view (a TLS read is a buffer of its own).
      this.kept.push(this.shared ? Buffer.from(slice) : slice);
      this.keptBytes += slice.length;
    }
    if (this.readBytes > LOAD_BOUNDS.answerReadBytes) {
      // Enough of it: the answer is taken as it is and the rest not read; the connection cannot carry another request.
      this.keepAlive = false;
      this.complete(false);
    }
  }

  private answer(): WireAnswer {
    const body = this.kept.length === 1 ? (this.kept[0] as Buffer) : Buffer.concat(this.kept, this.keptBytes);
    return { status: this.status, headers: this.headers, body };
  }

  /** The answer is whole: the connection goes back to the pool first (the next request may take it at once), then the answer out. */
  private complete(leftover: boolean): void {
    const callbacks = this.callbacks;
    if (callbacks === undefined) return;
    this.callbacks = undefined;
    this.phase = 'head';
    const answer = this.answer();
    if (this.keepAlive && !leftover && !this.gone) this.pool.release(this);
    else this.destroy();
    callbacks.answered(answer);
  }
}
