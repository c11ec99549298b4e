/**
 * A receiver that answers, but not with an HTTP/1.1 response (a control character in a header value, no status line),
 * or that closes the connection in the middle of its body, is told as what it did, at the URL in full, with a hint
 * that fits: never as a target cai could not reach. The receivers here are plain node:net servers.
 */
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CaiError } from '../../src/errors.js';
import { runConformance } from '../../src/conformance/run-receiver.js';

const ANSWERS: Record<string, (socket: Socket) => void> = {
  'an ESC in a header value': (socket) =>
    socket.end(
      'HTTP/1.1 202 Accepted\r\nX-Ctl: a\x1b[31mred\r\nContent-Length: 11\r\nConnection: close\r\n\r\n{"ok":true}',
    ),
  'no status line': (socket) => socket.end('garbage not http\r\n\r\n'),
  'a body cut off': (socket) => {
    socket.write('HTTP/1.1 202 Accepted\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"ok":tr');
    setTimeout(() => socket.destroy(), 20);
  },
};

async function startReceiver(answer: (socket: Socket) => void) {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    // Answered once the request's head and body are in (both come in the first reads of so small a request).
    socket.once('data', () => setTimeout(() => answer(socket), 5));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    close: () =>
      new Promise<void>((done) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => done());
      }),
  };
}

async function errorOfRun(url: string): Promise<CaiError> {
  try {
    await runConformance({
      interface: 'B',
      target: url,
      identity: 'acme',
      secrets: ['whsec_broken_answers_0123456789'],
      selection: { only: ['B-ACCEPT-001'], skip: [], include: [] },
      explore: false,
    });
  } catch (error) {
    if (error instanceof CaiError) return error;
    throw error;
  }
  throw new Error('the run did not stop');
}

describe('conformance run: an answer that is not one', () => {
  for (const [name, answer] of Object.entries(ANSWERS)) {
    it(`is told as what the receiver did: ${name}`, async () => {
      const receiver = await startReceiver(answer);
      try {
        const error = await errorOfRun(receiver.url);
        expect(error.exitCode).toBe(3);
        expect(error.message).not.toContain('unreachable');
        expect(error.message.startsWith(`${receiver.url} answered`)).toBe(true);
        expect(error.message).toMatch(
          name === 'a body cut off'
            ? /answered 202, then closed the connection in the middle of its body \(after 8 bytes of the 1000 it announced\)$/
            : /answered with bytes that are not an HTTP\/1\.1 response \(.+\)$/,
        );
        expect(error.hint).not.toMatch(/is running|--to/);
      } finally {
        await receiver.close();
      }
    });
  }
});
