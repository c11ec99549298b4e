/**
 * RFC 9110 §10.1.1 and RFC 9112 §3.2.2 at the mocks: no `100 Continue` for a request already refused from its
 * headers (413 by Content-Length, 401 by X-CAI-Provider or the signature headers), so its sender never uploads the
 * body; `100 Continue` once the headers pass, then the body read and answered; a target in absolute form accepted.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startMockPlatform, type RunningMockPlatform } from '../../../src/mock/platform.js';
import { LIVE_SECRET, event, rawExchange, signedHeaderLines } from '../../helpers/mock-client.js';

let mock: RunningMockPlatform | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function start(): Promise<RunningMockPlatform> {
  mock = await startMockPlatform({ providerCode: 'acme', secrets: [LIVE_SECRET] });
  return mock;
}

const head = (target: string, length: number, lines: string) =>
  `POST ${target} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n${lines}\r\n`;

describe('Expect: 100-continue', () => {
  it('a Content-Length over the limit: 413 at once, no 100 Continue', async () => {
    const { port } = await start();
    const answer = await rawExchange(port, [head('/events', 300_000, signedHeaderLines('x'))], { waitMs: 3_000 });
    expect(answer.status).toBe(413);
    expect(answer.text).not.toContain('100 Continue');
  });

  it('an unknown provider: 401 at once, no 100 Continue', async () => {
    const { port } = await start();
    const body = JSON.stringify(event());
    const answer = await rawExchange(
      port,
      [head('/events', body.length, signedHeaderLines(body, { provider: 'intruder' }))],
      { waitMs: 3_000 },
    );
    expect(answer.status).toBe(401);
    expect(answer.text).not.toContain('100 Continue');
  });

  it('headers that pass: 100 Continue, then the body is read and the event accepted', async () => {
    const { port } = await start();
    const body = JSON.stringify(event());
    const text = await new Promise<string>((resolve) => {
      let received = '';
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(head('/events', Buffer.byteLength(body), signedHeaderLines(body))),
      );
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('utf8');
        if (received.startsWith('HTTP/1.1 100 Continue\r\n\r\n') && !received.includes('202')) socket.write(body);
        if (received.includes('"ok":true')) {
          socket.destroy();
          resolve(received);
        }
      });
    });
    expect(text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 202 Accepted\r\n/);
  });
});

describe('a request target in absolute form', () => {
  it('is accepted for the events path (RFC 9112 §3.2.2)', async () => {
    const { port } = await start();
    const body = JSON.stringify(event());
    const request = `POST http://127.0.0.1:${port}/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${signedHeaderLines(body)}\r\n${body}`;
    expect((await rawExchange(port, [request], { waitMs: 3_000 })).status).toBe(202);
    const elsewhere = request.replace(`http://127.0.0.1:${port}/events`, `http://127.0.0.1:${port}/other`);
    expect((await rawExchange(port, [elsewhere], { waitMs: 3_000 })).status).toBe(404);
  });
});
