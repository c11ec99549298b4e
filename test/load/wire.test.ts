/**
 * The load engine's HTTP/1.1 client (src/load/wire.ts) against raw TCP servers that answer with crafted bytes, cut
 * anywhere: Content-Length, chunked, until close, an interim 100, Connection: close, keep-alive reuse, and what is
 * not HTTP (a bad status line, headers over the cap, bytes nobody asked for, a stall past the time-out).
 */
import { createServer as createHttpsServer } from 'node:https';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WirePool, type WireAnswer } from '../../src/load/wire.js';
import { TLS_FIXTURE } from '../helpers/scripted-server.js';

const servers: Server[] = [];
const pools: WirePool[] = [];

afterEach(async () => {
  pools.splice(0).forEach((pool) => pool.close());
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A TCP server that, for each request it reads (up to the end of its body), writes `answer(n)` in pieces. */
/** A piece of a raw answer that ends the connection (after what was written before it) instead of writing. */
const END = Symbol('end');

async function rawServer(
  answer: (index: number) => (string | Buffer | typeof END)[],
  onSocket?: (socket: Socket) => void,
): Promise<{ url: URL; connections: () => number; requests: string[] }> {
  let connections = 0;
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    onSocket?.(socket);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        requests.push(buffered.slice(0, end + 4 + length));
        buffered = buffered.slice(end + 4 + length);
        // Each piece 5 ms after the one before it, scheduled only once that one is written: timers of different
        // durations set at once may fire out of order on a busy machine (Node runs each duration's list in turn).
        const pieces = answer(requests.length - 1);
        const writeFrom = (index: number): void => {
          const piece = pieces[index];
          if (piece === undefined) return;
          if (piece === END) socket.end();
          else if (socket.writable) socket.write(piece);
          setTimeout(() => writeFrom(index + 1), 5);
        };
        writeFrom(0);
      }
    });
    socket.on('error', () => {});
  });
  server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const close = server.close.bind(server);
  server.close = ((callback?: (error?: Error) => void) => {
    sockets.forEach((socket) => socket.destroy());
    return close(callback);
  }) as typeof server.close;
  return { url: new URL(`http://127.0.0.1:${port}/events?x=1`), connections: () => connections, requests };
}

function send(pool: WirePool, body = '{"a":1}'): Promise<WireAnswer | string> {
  return new Promise((resolve) =>
    pool.send('content-type: application/json\r\nx-cai-provider: acme\r\n', body, {
      answered: resolve,
      failed: resolve,
    }),
  );
}

function poolFor(url: URL, timeoutMs = 5000): WirePool {
  const pool = new WirePool({ url, timeoutMs });
  pools.push(pool);
  return pool;
}

describe('the load client', () => {
  it('writes one POST with Host and Content-Length, and reads a Content-Length answer cut in pieces', async () => {
    const server = await rawServer(() => [
      'HTTP/1.1 202 Accepted\r\nContent-Ty',
      'pe: application/json\r\nContent-Length: 11\r\n\r\n{"ok"',
      ':true}',
    ]);
    const answer = (await send(poolFor(server.url))) as WireAnswer;
    expect(answer).toEqual({
      status: 202,
      headers: { 'content-type': 'application/json', 'content-length': '11' },
      body: Buffer.from('{"ok":true}'),
    });
    expect(server.requests[0]).toBe(
      `POST /events?x=1 HTTP/1.1\r\nhost: ${server.url.host}\r\ncontent-type: application/json\r\nx-cai-provider: acme\r\ncontent-length: 7\r\n\r\n{"a":1}`,
    );
  });

  it('reads a chunked answer with extensions and trailers, after an interim 100, and reuses the connection', async () => {
    const server = await rawServer(() => [
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many Requests\r\nRetry-After: 7\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\n{"ok',
      '"\r',
      '\n7\r\n:false}\r\n0\r\nX-Trailer: 1\r\n\r\n',
    ]);
    const pool = poolFor(server.url);
    const first = (await send(pool)) as WireAnswer;
    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBe('7');
    expect(first.body.toString()).toBe('{"ok":false}');
    expect(((await send(pool)) as WireAnswer).body.toString()).toBe('{"ok":false}');
    expect(server.connections()).toBe(1);
  });

  it('reads a body until the close when there is no length, and opens a new connection for Connection: close', async () => {
    const server = await rawServer((index) =>
      index === 0
        ? ['HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 2\r\n\r\nno']
        : ['HTTP/1.0 200 OK\r\n\r\nuntil the end', END],
    );
    const pool = poolFor(server.url);
    expect(((await send(pool)) as WireAnswer).status).toBe(503);
    // The HTTP/1.0 answer without a length ends when the server closes the connection (after writing it: END).
    expect(((await send(pool)) as WireAnswer).body.toString()).toBe('until the end');
    expect(server.connections()).toBe(2);
  });

  it('fails a request on what is not HTTP/1.x, on headers over the cap, on a refused connection and on a stall', async () => {
    const bad = await rawServer(() => ['SMTP ready\r\n\r\n']);
    expect(await send(poolFor(bad.url))).toBe('bad_response');
    const badChunk = await rawServer(() => ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nokXX0\r\n\r\n']);
    expect(await send(poolFor(badChunk.url))).toBe('bad_response');
    const huge = await rawServer(() => [`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expect(await send(poolFor(huge.url))).toBe('headers_too_large');
    const silent = await rawServer(() => []);
    expect(await send(poolFor(silent.url, 200))).toBe('timeout');
    const gone = await rawServer(() => []);
    const port = gone.url.port;
    await new Promise((resolve) => servers.pop()?.close(resolve));
    expect(await send(poolFor(new URL(`http://127.0.0.1:${port}/`)))).toBe('ECONNREFUSED');
  });

  it('does not reuse a connection that sent bytes no request asked for', async () => {
    const server = await rawServer(() => ['HTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\nokEXTRA']);
    const pool = poolFor(server.url);
    expect(((await send(pool)) as WireAnswer).body.toString()).toBe('ok');
    expect(((await send(pool)) as WireAnswer).status).toBe(202);
    expect(server.connections()).toBe(2);
  });

  it('speaks TLS 1.2 or above, trusting --ca beside the bundled authorities, and refuses an unknown certificate', async () => {
    const server = createHttpsServer({ cert: TLS_FIXTURE.cert, key: TLS_FIXTURE.key }, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(202, { 'content-type': 'application/json' }).end('{"ok":true}'));
    });
    servers.push(server as unknown as Server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = new URL(`https://localhost:${(server.address() as AddressInfo).port}/events`);
    const trusted = new WirePool({ url, timeoutMs: 5000, ca: TLS_FIXTURE.ca });
    const untrusted = new WirePool({ url, timeoutMs: 5000 });
    pools.push(trusted, untrusted);
    expect(((await send(trusted)) as WireAnswer).status).toBe(202);
    expect(await send(untrusted)).toMatch(/CERT|SELF_SIGNED|UNABLE_TO_VERIFY/);
    server.closeAllConnections();
  });
});
