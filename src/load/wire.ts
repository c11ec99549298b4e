/**
 * The HTTP/1.1 client of `cai load`: keep-alive connections on `net` (or `tls`, 1.2 or above, §5.8), one request at
 * a time on each, each request written in one buffer, each answer read by a small parser of its own (status line,
 * headers, a body by Content-Length, chunked, or until the connection closes). It does what a load generator needs
 * and nothing else (no redirects, no proxy, no retries), as autocannon does with its own client: undici, the
 * senders' client (src/http/client.ts), reached about a third of autocannon's rate on the same connections
 * (docs/benchmarks.md, `load`), its general machinery costing more than the requests.
 *
 * Bounds: a status line and headers of at most NETWORK_CAPS.responseHeaderBytes (src/bounds.ts), a body kept up to
 * LOAD_BOUNDS.answerBodyBytes and read up to LOAD_BOUNDS.answerReadBytes (then the connection is closed); an answer
 * that stalls for the time-out fails its request and closes its connection. A connection the receiver closes is
 * replaced by a new one for the next request; the most recently used idle connection is reused first, so at a low
 * rate few stay open.
 */
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import { NETWORK_CAPS } from '../bounds.js';
import { MIN_TLS_VERSION, trustedAuthorities } from '../http/tls.js';
import { LOAD_BOUNDS } from './bounds.js';

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
  /** A request in flight with no byte received for this long fails (connecting included). */
  timeoutMs: number;
}

const CRLF = Buffer.from('\r\n');
/** The headers a load run reads of an answer: its framing, and what the judging needs (§7 Retry-After). */
const ANSWER_HEADERS = ['content-length', 'transfer-encoding', 'connection', 'content-type', 'retry-after'] as const;

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

export class WirePool {
  private readonly idle: Connection[] = [];
  private readonly open = new Set<Connection>();
  private readonly prefix: string;
  private readonly timer: NodeJS.Timeout;
  /** The timer's ticks so far: a connection notes the tick of its last activity (cheaper than a clock reading a byte). */
  tick = 0;
  private readonly tickMs: number;
  /** Every plain connection reads into this one buffer (`onread`): a read is parsed before the next one comes. */
  readonly readBuffer = Buffer.allocUnsafe(64 * 1024);
  private closed = false;

  constructor(readonly options: WireOptions) {
    const { url } = options;
    // A request line and the Host header (RFC 9112 §3.2), the same for every request.
    this.prefix = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
    // One timer for every connection, rather than one per request: a stall is noticed within a quarter of the time-out.
    this.tickMs = Math.max(50, Math.min(1000, options.timeoutMs / 4));
    this.timer = setInterval(() => this.expire(), this.tickMs);
    this.timer.unref();
  }

  /**
   * Sends one POST: `lines` are header lines (each ending in CRLF) after Host, before Content-Length, which is added;
   * `body` is text, written as UTF-8 (the bytes it stands for). The request is made in one buffer (the body written
   * into it, never copied) and written on an idle connection, or on a new one.
   */
  send(lines: string, body: string, callbacks: WireCallbacks): void {
    if (this.closed) {
      callbacks.failed('closed');
      return;
    }
    const bodyLength = Buffer.byteLength(body, 'utf8');
    const head = `${this.prefix}${lines}content-length: ${bodyLength}\r\n\r\n`;
    const request = Buffer.allocUnsafe(head.length + bodyLength);
    // The head is ASCII (the identity is a checked header value): one byte a character.
    request.write(head, 0, 'latin1');
    request.write(body, head.length, 'utf8');
    const connection = this.idle.pop() ?? this.connect();
    connection.send(request, callbacks);
  }

  /**
   * Opens `count` connections before the first request, as autocannon does, and resolves once each is connected
   * (TLS included) or has failed, or after the time-out: the first arrivals then find them ready rather than wait
   * for handshakes on a busy machine. No request is sent; one that fails to connect is replaced when needed.
   */
  warm(count: number): Promise<void> {
    const connections = Array.from({ length: count }, () => this.connect());
    this.idle.push(...connections);
    return new Promise((resolve) => {
      let waiting = connections.length;
      const timer = setTimeout(resolve, this.options.timeoutMs);
      const settled = () => {
        waiting -= 1;
        if (waiting > 0) return;
        clearTimeout(timer);
        resolve();
      };
      if (waiting === 0) settled();
      for (const connection of connections) connection.whenReady(settled);
    });
  }

  /** An answer is complete and the connection may carry the next request. */
  release(connection: Connection): void {
    if (this.closed) connection.destroy();
    else this.idle.push(connection);
  }

  forget(connection: Connection): void {
    this.open.delete(connection);
    const index = this.idle.indexOf(connection);
    if (index !== -1) this.idle.splice(index, 1);
  }

  /** Closes every connection; requests still in flight fail (`closed`). */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const connection of [...this.open]) connection.destroy('closed');
  }

  private connect(): Connection {
    const connection = new Connection(this, this.options);
    this.open.add(connection);
    return connection;
  }

  private expire(): void {
    this.tick += 1;
    // Stalled: no activity for the whole time-out (a tick more, since activity is noted by the tick it fell in).
    const ticks = Math.ceil(this.options.timeoutMs / this.tickMs) + 1;
    for (const connection of this.open) connection.expireIfStalled(this.tick, ticks);
  }

}

type Phase = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailer' | 'until-close';

class Connection {
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
  /** The pool's tick of the last byte sent or received. */
  private lastActivity = 0;
  private gone = false;
  /** The data being parsed is a view of the pool's read buffer. */
  private shared = false;

  constructor(
    private readonly pool: WirePool,
    options: WireOptions,
  ) {
    const { url } = options;
    const host = url.hostname.replace(/^\[|\]$/g, '');
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
          netConnect({ host, port, onread: { buffer: pool.readBuffer, callback: (size: number, buffer: Uint8Array) => this.read(Buffer.from(buffer.buffer, buffer.byteOffset, size), true) } });
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
    this.lastActivity = this.pool.tick;
    this.socket.write(request);
  }

  expireIfStalled(tick: number, ticks: number): void {
    if (this.callbacks !== undefined && tick - this.lastActivity >= ticks) this.destroy('timeout');
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
    if (this.phase === 'until-close' && code === 'ECONNRESET') {
      this.callbacks = undefined;
      callbacks.answered(this.answer());
      return;
    }
    this.callbacks = undefined;
    callbacks.failed(code);
  }

  /** `shared`: `chunk` is a view of the pool's read buffer, written again by the next read. */
  private read(chunk: Buffer, shared: boolean): true {
    this.lastActivity = this.pool.tick;
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
        if (end > NETWORK_CAPS.responseHeaderBytes) {
          this.destroy('headers_too_large');
          return undefined;
        }
        const rest = data.subarray(end + 4);
        const read = this.parseHead(data.toString('latin1', 0, end));
        if (read === 'closed') return undefined;
        if (read === 'complete') this.complete(rest.length > 0);
        return rest;
      }
      case 'length': {
        const take = Math.min(this.remaining, data.length);
        this.keep(data.subarray(0, take));
        this.remaining -= take;
        if (this.remaining === 0) this.complete(data.length > take);
        return data.subarray(take);
      }
      case 'chunk-size': {
        const end = data.indexOf(CRLF);
        if (end === -1) return this.wait(data, 1024, 'bad_response');
        const size = Number.parseInt(data.toString('latin1', 0, end).split(';')[0] as string, 16);
        if (!Number.isFinite(size) || size < 0) {
          this.destroy('bad_response');
          return undefined;
        }
        this.phase = size === 0 ? 'trailer' : 'chunk-data';
        this.remaining = size;
        return data.subarray(end + 2);
      }
      case 'chunk-data': {
        const take = Math.min(this.remaining, data.length);
        this.keep(data.subarray(0, take));
        this.remaining -= take;
        if (this.remaining === 0) {
          this.phase = 'chunk-end';
          this.remaining = 2;
        }
        return data.subarray(take);
      }
      case 'chunk-end': {
        // The CRLF after a chunk's data (it may come split over two reads).
        const take = Math.min(this.remaining, data.length);
        for (let index = 0; index < take; index += 1) {
          if (data[index] !== (this.remaining - index === 2 ? 0x0d : 0x0a)) {
            this.destroy('bad_response');
            return undefined;
          }
        }
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
    if (data.length > cap) this.destroy(code);
    else this.pending = this.shared ? Buffer.from(data) : data;
    return undefined;
  }

  /**
   * The status line and the headers a load run reads: the body to read next, an answer already whole, or a
   * connection closed. Names are found in a lower-cased copy of the head (latin1: the same length), values taken
   * from the head as sent.
   */
  private parseHead(head: string): 'body' | 'complete' | 'closed' {
    // `HTTP/1.x NNN`: the version's minor digit at 7, the status at 9–11.
    if (head.length < 12 || !head.startsWith('HTTP/1.') || head.charCodeAt(8) !== 0x20) {
      this.destroy('bad_response');
      return 'closed';
    }
    const status = Number(head.slice(9, 12));
    if (!(status >= 100 && status <= 999)) {
      this.destroy('bad_response');
      return 'closed';
    }
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
      if (!/^[0-9]{1,15}$/.test(length)) {
        this.destroy('bad_response');
        return 'closed';
      }
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
      const slice = part.length + this.keptBytes > LOAD_BOUNDS.answerBodyBytes ? part.subarray(0, LOAD_BOUNDS.answerBodyBytes - this.keptBytes) : part;
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
