/**
 * Fair admission (src/http/admission.ts) on loopback, bounded in count and time: connections that hold every slot
 * without a request give way to a client that sends one (before: it was closed on arrival); a connection that
 * pipelines past its requests in flight is read no further, has those answered and is closed, while another client is
 * served; the inspector's header time-out holds to the second, its slots give way to a page under a flood of
 * half-sent headers, and its search does not answer whether a secret is in a body.
 */
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RECEIVER_LIMITS, listen, type ListeningServer } from '../../src/http/server.js';
import { InspectorStore } from '../../src/inspector/store.js';
import { startInspectorServer } from '../../src/inspector/server.js';
import { startMockPlatform } from '../../src/mock/platform.js';
import { LIVE_SECRET, event, post } from '../helpers/mock-client.js';
import { copyCommandsFor } from '../../src/commands/mock/copy-commands.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `count` connections that connect and send `text` (nothing by default), then nothing more; destroyed after the test. */
async function hold(port: number, count: number, text = ''): Promise<Socket[]> {
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve) => {
          const socket = connect(port, '127.0.0.1', () => {
            if (text) socket.write(text);
            resolve(socket);
          });
          socket.on('error', () => {});
          // Reads what comes (so a close is seen), answers nothing.
          socket.resume();
        }),
    ),
  );
  cleanups.push(() => sockets.forEach((socket) => socket.destroy()));
  // Let the server see them all.
  await new Promise((resolve) => setTimeout(resolve, 100));
  return sockets;
}

/** A GET with a fresh connection: the status, or the error's code. */
function getOnce(port: number, path = '/', host = `127.0.0.1:${port}`): Promise<number | string> {
  return new Promise((resolve) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, agent: false, headers: { host }, timeout: 5_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

async function server(handled: { count: number }, limits = {}): Promise<ListeningServer> {
  const listening = await listen(
    (_request, response) => {
      handled.count += 1;
      response.end('ok');
    },
    { host: '127.0.0.1', port: 0, path: '/', limits: { ...DEFAULT_RECEIVER_LIMITS, maxConnections: 8, ...limits } },
  );
  cleanups.push(() => listening.close(async () => {}));
  return listening;
}

describe('a receiver at its connection limit', () => {
  it('makes room for a client with a request: the silent connections give way, oldest first', async () => {
    const handled = { count: 0 };
    const { port } = await server(handled);
    const silent = await hold(port, 8);
    for (let i = 0; i < 5; i += 1) expect(await getOnce(port)).toBe(200);
    expect(silent.filter((socket) => socket.destroyed || socket.readableEnded).length).toBeGreaterThan(0);
  });
});

describe('a connection that pipelines without reading the answers', () => {
  it('is read no further past 16 requests in flight, and closed; another client is served meanwhile', async () => {
    const handled = { count: 0 };
    const { port } = await server(handled, { maxConnections: 64 });
    const flooder = connect(port, '127.0.0.1');
    flooder.on('error', () => {});
    const closed = new Promise<void>((resolve) => flooder.on('close', () => resolve()));
    flooder.resume();
    // 2 000 requests in one write: Node parses a read of them at once.
    flooder.write('GET /x HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(2_000));
    await closed;
    expect(handled.count).toBeLessThanOrEqual(16);
    expect(await getOnce(port)).toBe(200);
  });
});

/** Writes `text` on a fresh connection and resolves with all it read until it was closed. */
function exchange(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    let read = '';
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(text);
    });
    socket.on('data', (chunk: Buffer) => (read += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve(read));
    cleanups.push(() => void socket.destroy());
  });
}

/** A server whose handler answers each request after `delayMs` (so that pipelined ones are in flight together). */
async function slowServer(delayMs: number): Promise<ListeningServer> {
  const listening = await listen(
    (_request, response) => {
      setTimeout(() => response.end('ok'), delayMs);
    },
    { host: '127.0.0.1', port: 0, path: '/', limits: DEFAULT_RECEIVER_LIMITS },
  );
  cleanups.push(() => listening.close(async () => {}));
  return listening;
}

const answersIn = (text: string) => text.match(/HTTP\/1\.1 200 OK/g)?.length ?? 0;

describe('the answers owed on a connection', () => {
  it('past 16 requests in flight, the 16 handled are answered before the connection is closed', async () => {
    const { port } = await slowServer(50);
    const read = await exchange(port, 'GET /x HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(17));
    expect(answersIn(read)).toBe(16);
  });
});

describe('the inspector', () => {
  async function inspector(caps: Record<string, number> = {}) {
    const store = new InspectorStore();
    const mock = await startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET], observe: store.observe });
    cleanups.push(() => mock.close());
    const running = await startInspectorServer({
      kind: 'platform',
      store,
      signing: { identity: 'provider', credentials: [{ code: 'acme', space: 'live', secrets: [LIVE_SECRET] }] },
      mockUrl: mock.url,
      postUrl: mock.url,
      copyCommands: copyCommandsFor({
        postUrl: mock.url,
        identity: 'provider',
        secretFlags: { live: '--secret-env CAI_SECRET' },
      }),
      secrets: [LIVE_SECRET],
      caps,
    });
    cleanups.push(() => running.close());
    return { mock, running };
  }

  it('cuts half-sent headers at its header time-out, to the second (Node checked only every 30 s)', async () => {
    const { running } = await inspector({ headersTimeoutMs: 600 });
    const [socket] = await hold(running.port, 1, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    // Within the test's own time-out (5 s), far under the 30 s Node's default check took.
    await new Promise<void>((resolve) => socket?.on('close', () => resolve()));
  });

  it('serves a page while half-sent headers hold every slot (128)', async () => {
    const { running } = await inspector();
    await hold(running.port, 128, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    expect(await getOnce(running.port)).toBe(200);
  });

  it('does not search inside a secret: no answer to "is it there?", character by character', async () => {
    const { mock, running } = await inspector();
    // A sender that put the secret in a body by mistake.
    expect((await post(mock.url, event({ text: `oops ${LIVE_SECRET} here` }))).status).toBe(202);
    const matched = async (q: string) => {
      const got = await fetch(new URL(`/api/requests?q=${encodeURIComponent(q)}`, running.url));
      return ((await got.json()) as { matched: number }).matched;
    };
    expect(await matched('oops')).toBe(1);
    expect(await matched(LIVE_SECRET.slice(0, 6))).toBe(0);
    expect(await matched(LIVE_SECRET)).toBe(0);
    expect(await matched(`oops ${LIVE_SECRET.slice(0, 3)}`)).toBe(0);
    expect(await matched('here')).toBe(1);
  });
});
