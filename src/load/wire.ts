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
 * not whole within the time-out (a total deadline: headers and body, however slowly they trickle) fails its
 * request and closes its connection. A connection the receiver closes is
 * replaced by a new one for the next request; the most recently used idle connection is reused first, so at a low
 * rate few stay open.
 */
import {
  Connection,
  type ConnectionPool,
  type WireAnswer,
  type WireCallbacks,
  type WireOptions,
} from './wire-connection.js';

export type { WireAnswer, WireCallbacks, WireOptions };

export class WirePool implements ConnectionPool {
  private readonly idle: Connection[] = [];
  private readonly open = new Set<Connection>();
  private readonly prefix: string;
  private readonly timer: NodeJS.Timeout;
  /** The timer's ticks so far: a connection notes the tick its request was written in (cheaper than a clock reading). */
  tick = 0;
  private readonly tickMs: number;
  /** Every plain connection reads into this one buffer (`onread`): a read is parsed before the next one comes. */
  readonly readBuffer = Buffer.allocUnsafe(64 * 1024);
  private closed = false;

  constructor(readonly options: WireOptions) {
    const { url } = options;
    // A request line and the Host header (RFC 9112 §3.2), the same for every request.
    this.prefix = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
    // One timer for every connection, rather than one per request: an overdue answer is noticed within a quarter of
    // the time-out.
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

  /** Closes every connection; requests still in flight fail with `code` (`closed`, or `timeout` at the run's deadline). */
  close(code = 'closed'): void {
    this.closed = true;
    clearInterval(this.timer);
    for (const connection of [...this.open]) connection.destroy(code);
  }

  private connect(): Connection {
    const connection = new Connection(this, this.options);
    this.open.add(connection);
    return connection;
  }

  private expire(): void {
    this.tick += 1;
    // Overdue: written the whole time-out ago (a tick more, since a request is noted by the tick it fell in).
    const ticks = Math.ceil(this.options.timeoutMs / this.tickMs) + 1;
    for (const connection of this.open) connection.expireIfOverdue(this.tick, ticks);
  }
}
