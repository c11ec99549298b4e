/**
 * Requests the server answers itself, before the receive pipeline (src/http/admission.ts, src/http/server.ts): what
 * Node's parser cannot read, an HTTP/1.1 request without Host, an Expect other than 100-continue, a CONNECT, headers
 * that never end. Each leaves one entry (the mock's line) and one observed request (the inspector's row), like every
 * other request, with its status and reason and nothing from the network unescaped. Raw sockets on loopback.
 */
import { connect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import {
  startMockPlatform,
  type MockRequestEntry,
  type ObservedRequest,
  type RunningMockPlatform,
} from '../../../src/mock/platform.js';
import { LIVE_SECRET, rawExchange, rawJson } from '../../helpers/mock-client.js';

let mock: RunningMockPlatform | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

interface Heard {
  port: number;
  entries: MockRequestEntry[];
  observed: ObservedRequest[];
}

async function start(limits: { headersTimeoutMs?: number } = {}): Promise<Heard> {
  const heard: Omit<Heard, 'port'> = { entries: [], observed: [] };
  mock = await startMockPlatform({
    providerCode: 'acme',
    secrets: [LIVE_SECRET],
    limits,
    onRequest: (entry) => heard.entries.push(entry),
    observe: (observed) => heard.observed.push(observed),
  });
  return { ...heard, port: Number(new URL(mock.url).port) };
}

/** Nothing on the line or in the message a terminal could act on: printable ASCII and the ellipsis only. */
const PRINTABLE = /^[\x20-\x7e…§]*$/;

it.each([
  [
    'a control byte in a header value',
    'POST /events HTTP/1.1\r\nHost: x\r\nX-CAI-Provider: acme\x01\r\nContent-Length: 2\r\n\r\n{}',
    400,
    'bad_request',
    '`X-CAI-Provider: acme\\x01`',
  ],
  [
    'Content-Length with Transfer-Encoding',
    'POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    400,
    'bad_request',
    '`Transfer-Encoding: chunked`',
  ],
  [
    'a space in a header name',
    'POST /events HTTP/1.1\r\nHost: x\r\nX-CAI-Provider : acme\r\nContent-Length: 2\r\n\r\n{}',
    400,
    'bad_request',
    '`X-CAI-Provider : acme`',
  ],
  [
    'headers over the limit',
    `POST /events HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    431,
    'headers_too_large',
    'aaaa',
  ],
])(
  '%s: answered by the server, and still one entry and one observed request',
  async (_name, head, status, reason, near) => {
    const heard = await start();
    const answer = await rawExchange(heard.port, [head]);
    expect(answer.status, answer.text).toBe(status);
    await expect.poll(() => heard.observed.length).toBe(1);
    expect(heard.entries).toHaveLength(1);
    const [entry] = heard.entries as [MockRequestEntry];
    expect(entry).toMatchObject({ interface: 'B', status, verdict: 'rejected', reason });
    expect(entry.message).toContain(near);
    expect(entry.message).toMatch(PRINTABLE);
    const [observed] = heard.observed as [ObservedRequest];
    expect(observed.entry).toBe(entry);
    // The request line read before the parser gave up; the headers it never finished are not handed on.
    expect(observed).toMatchObject({ method: 'POST', target: '/events', httpVersion: '1.1', rawHeaders: [] });
    expect(observed.remoteAddress).toMatch(/127\.0\.0\.1$/);
    expect(observed.body).toBeUndefined();
    // The answer the observer is handed is the one the sender got.
    expect(observed.reply.status).toBe(status);
    expect(JSON.parse(observed.reply.body?.toString() ?? '')).toEqual(rawJson(answer));
    expect(rawJson(answer)).toEqual({ ok: false, error: reason, message: entry.message });
  },
);

it.each([
  ['an HTTP/1.1 request without Host', 'POST /events HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}', 400, 'bad_request'],
  [
    'an expectation other than 100-continue',
    'POST /events HTTP/1.1\r\nHost: x\r\nExpect: evil\r\nContent-Length: 2\r\n\r\n{}',
    417,
    'expectation_failed',
  ],
  ['a CONNECT', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n', 405, 'method_not_allowed'],
])('%s: one entry, and the request as Node parsed it for the observer', async (_name, head, status, reason) => {
  const heard = await start();
  const answer = await rawExchange(heard.port, [head]);
  expect(answer.status, answer.text).toBe(status);
  await expect.poll(() => heard.observed.length).toBe(1);
  expect(heard.entries).toEqual([expect.objectContaining({ status, reason, verdict: 'rejected' })]);
  const [observed] = heard.observed as [ObservedRequest];
  const requestLine = /^(\S+) (\S+) HTTP\/(\S+)\r\n/.exec(head);
  expect(observed).toMatchObject({ method: requestLine?.[1], target: requestLine?.[2], httpVersion: '1.1' });
  expect(observed.rawHeaders.length).toBeGreaterThan(0);
  expect(observed.reply.status).toBe(status);
  expect(JSON.parse(observed.reply.body?.toString() ?? '')).toMatchObject(rawJson(answer) as object);
});

it('bytes that begin no request line: reported with an empty request line and every byte escaped', async () => {
  const heard = await start();
  const answer = await rawExchange(heard.port, ['\x1b]0;owned\x07\x1b[2J\r\n\r\n']);
  expect(answer.status, answer.text).toBe(400);
  await expect.poll(() => heard.observed.length).toBe(1);
  const [entry] = heard.entries as [MockRequestEntry];
  expect(entry.message).toContain('`\\x1b]0;owned\\x07\\x1b[2J`');
  expect(entry.message).toMatch(PRINTABLE);
  expect(heard.observed[0]).toMatchObject({ method: '', target: '', httpVersion: '', rawHeaders: [] });
});

it('headers that never end: the 408 is reported; a connection that sent nothing before its time-out is not', async () => {
  const heard = await start({ headersTimeoutMs: 200 });
  const silent = await rawExchange(heard.port, []);
  expect(silent.status).toBe(408);
  const stalled = await rawExchange(heard.port, ['POST /events HTTP/1.1\r\nHost: x\r\n']);
  expect(stalled.status).toBe(408);
  await expect.poll(() => heard.observed.length).toBe(1);
  expect(heard.entries).toEqual([expect.objectContaining({ status: 408, reason: 'timeout', verdict: 'rejected' })]);
});

it('each refused connection is one entry: a burst of them is counted exactly, none twice', async () => {
  const heard = await start();
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, index) =>
      rawExchange(heard.port, [`POST /events/${index} HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n`]),
    ),
  );
  expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(400));
  await expect.poll(() => heard.observed.length).toBe(20);
  expect(new Set(heard.observed.map((observed) => observed.target)).size).toBe(20);
  expect(heard.entries).toHaveLength(20);
});

it('a request pipelined after one in flight is not reported on its own: the one in flight is answered and reported', async () => {
  const heard = await start();
  // Node's parser refuses the second head while the first (a 401: no identity) is in flight.
  const answer = await new Promise<string>((resolve) => {
    const socket = connect(heard.port, '127.0.0.1', () =>
      socket.write(
        'POST /events HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}POST /events HTTP/1.1\r\nBad Name: v\r\n\r\n',
      ),
    );
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('close', () => resolve(text));
    socket.on('error', () => {});
  });
  expect(answer).toMatch(/^HTTP\/1\.1 401 /);
  await expect.poll(() => heard.observed.length).toBe(1);
  expect(heard.entries).toEqual([expect.objectContaining({ status: 401 })]);
});
